package dev.questionflow.faq;

import dev.questionflow.faq.SemanticCalibration.Answer;
import dev.questionflow.faq.SemanticCalibration.SignalsRow;
import java.util.List;

/**
 * What one model's semantic search in a {@link Calibrator} chooses among: every question's
 * out-of-fold signals, from which any semantic numbers are scored by the search's own objective.
 * {@link SemanticCalibration} chooses with it; {@code CalibratorTest} checks with it that a
 * committed choice is still (near-)best when rerun on another CPU, where the embedding model's
 * floats differ in their last bits and a near-tie between two candidates may go the other way.
 */
final class SemanticCandidates {

  /**
   * Numbers' pooled out-of-fold shares (top-1 of the in-scope questions; in-scope answered and
   * out-of-scope abstained at their thresholds) and their figures per fold.
   */
  record Score(double top1, double answered, double oosAbstention, Calibrator.Figures figures) {}

  private final Calibrator calibrator;
  private final List<SignalsRow> rows;
  private final int entries;

  SemanticCandidates(Calibrator calibrator, List<SignalsRow> rows, int entries) {
    this.calibrator = calibrator;
    this.rows = List.copyOf(rows);
    this.entries = entries;
  }

  /**
   * Whether {@link #score} scores these numbers as the matcher applies them: the rows hold the
   * largest searched kNN size and no keyword score, so the search writes {@code confidentSimilarity
   * = minSimilarity} and {@code minKeyword = 0}.
   */
  boolean scoresFaithfully(SemanticSettings s) {
    int largestK = SemanticCalibration.KNN_K[SemanticCalibration.KNN_K.length - 1];
    return s.knnK() <= largestK
        && s.confidentSimilarity() == s.minSimilarity()
        && s.minKeyword() == 0;
  }

  Score score(SemanticSettings s) {
    List<Answer> answers = SemanticCalibration.answers(rows, s, entries);
    double[] t = {s.minScore(), s.minSimilarity(), s.minOutOfScopeGap()};
    return new Score(
        Calibrator.share(answers, Answer::correct, Answer::inScope),
        Calibrator.share(answers, a -> a.answers(t), Answer::inScope),
        Calibrator.share(answers, a -> !a.answers(t), a -> !a.inScope()),
        calibrator.figures(answers, a -> a.answers(t)));
  }

  /** {@code fusion}'s kNN settings and weights with the thresholds the search chooses for them. */
  SemanticSettings withBestThresholds(SemanticSettings fusion) {
    double[] t =
        SemanticCalibration.thresholds(
            SemanticCalibration.answers(rows, fusion, entries),
            minAnswered(),
            calibrator.pack().outOfScope().isEmpty());
    return fusion.withThresholds(t[0], t[1], t[1], 0).withOutOfScopeGap(t[2]);
  }

  /** The least share of in-scope questions the thresholds must answer. */
  double minAnswered() {
    return calibrator.options().minAnswered();
  }

  /** The in-scope questions (one of them is the least step of an in-scope share). */
  long inScope() {
    return rows.stream().filter(r -> r.gold() >= 0).count();
  }
}
