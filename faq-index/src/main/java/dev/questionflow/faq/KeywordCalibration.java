package dev.questionflow.faq;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The keyword level's search in a {@link Calibrator}: hits per entry by pooled out-of-fold top-1;
 * then the abstention thresholds that answer the most in-scope questions correctly while abstaining
 * on at least {@code keywordOosAbstention} of the out-of-scope ones.
 */
final class KeywordCalibration {

  /** The chosen keyword numbers and their k-fold figures. */
  record Result(KeywordSettings settings, Calibrator.Figures figures) {}

  /** One question's top candidate as the keyword thresholds see it. */
  private record KeywordRow(
      int fold,
      boolean inScope,
      boolean correct,
      double score,
      double coverage,
      double queryIdf,
      double margin)
      implements Calibrator.Row {

    /** Answered under thresholds {@code {score, coverage, query IDF, margin}}. */
    boolean answers(double[] t) {
      return score >= t[0] && coverage >= t[1] && queryIdf >= t[2] && margin >= t[3];
    }
  }

  private static final int[] HITS_PER_FAQ = {1, 2, 3, 5, 10, 20};

  private KeywordCalibration() {}

  static Result run(Calibrator calibrator) {
    // the least query information (one very common word such as "card" or 退款 is too vague to
    // answer) is a rule, not a tuned number: no training set asks such one-word questions, so a
    // search would drop it
    KeywordSettings language = KeywordSettings.languageDefault(calibrator.pack());
    double minQueryIdf = language.minQueryIdf();
    KeywordSettings base = language.withThresholds(0, 0, 0, 0);
    List<KeywordRow> rows = null;
    int bestHits = base.hitsPerFaq();
    double bestTop1 = -1;
    for (int hits : HITS_PER_FAQ) {
      List<KeywordRow> tried = rows(calibrator, base.withHitsPerFaq(hits));
      double top1 = Calibrator.share(tried, KeywordRow::correct, KeywordRow::inScope);
      calibrator
          .log()
          .printf(
              Locale.ROOT,
              "keyword: hits-per-faq %d, out-of-fold top-1 %.2f %%%n",
              hits,
              100 * top1);
      if (top1 > bestTop1 + 1e-9) {
        bestTop1 = top1;
        bestHits = hits;
        rows = tried;
      }
    }
    double minOos = calibrator.options().keywordOosAbstention();
    double[] best = null;
    double bestCorrect = -1;
    double bestOos = -1;
    for (double score = 0; score <= 0.3001; score += 0.01) {
      for (double coverage = 0; coverage <= 0.9501; coverage += 0.05) {
        for (double margin : new double[] {0, 0.05, 0.1, 0.2}) {
          double[] t = {score, coverage, minQueryIdf, margin};
          double oos = Calibrator.share(rows, r -> !r.answers(t), r -> !r.inScope());
          if (oos < minOos) {
            continue;
          }
          double correct =
              Calibrator.share(rows, r -> r.correct() && r.answers(t), KeywordRow::inScope);
          if (correct > bestCorrect + 1e-9
              || (Math.abs(correct - bestCorrect) < 1e-9 && oos > bestOos + 1e-9)) {
            bestCorrect = correct;
            bestOos = oos;
            best = t;
          }
        }
      }
    }
    if (best == null) {
      throw new IllegalStateException(
          "no keyword thresholds abstain on " + minOos + " of the out-of-scope questions");
    }
    double[] t = best;
    KeywordSettings chosen =
        base.withHitsPerFaq(bestHits).withThresholds(round(t[0]), round(t[1]), round(t[2]), t[3]);
    return new Result(chosen, calibrator.figures(rows, r -> r.answers(t)));
  }

  private static List<KeywordRow> rows(Calibrator calibrator, KeywordSettings settings) {
    List<KeywordRow> rows = new ArrayList<>();
    List<List<LabeledQuestion>> folds = calibrator.folds();
    for (int f = 0; f < folds.size(); f++) {
      try (KeywordFaqIndex index = KeywordFaqIndex.build(calibrator.foldPack(f), settings)) {
        for (LabeledQuestion q : folds.get(f)) {
          rows.add(row(index, f, q.text(), q.faqId()));
        }
        for (String q : calibrator.outOfScope()) {
          rows.add(row(index, f, q, null));
        }
      }
    }
    return rows;
  }

  private static KeywordRow row(KeywordFaqIndex index, int fold, String text, String gold) {
    List<KeywordRanker.Candidate> top = index.rank(text, 2);
    if (top.isEmpty()) {
      return new KeywordRow(fold, gold != null, false, -1, 0, 0, 0); // no candidate: abstains
    }
    KeywordRanker.Candidate first = top.get(0);
    double margin =
        top.size() < 2 || first.score() <= 0
            ? 1
            : (first.score() - top.get(1).score()) / first.score();
    return new KeywordRow(
        fold,
        gold != null,
        first.faqId().equals(gold),
        first.score(),
        first.coverage(),
        first.maxPossible(),
        margin);
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
