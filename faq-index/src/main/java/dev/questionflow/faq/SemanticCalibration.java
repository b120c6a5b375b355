package dev.questionflow.faq;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The semantic level's search in a {@link Calibrator}, per model: kNN size and temperature and the
 * fusion weights by pooled out-of-fold top-1; then the thresholds (minimum fused score,
 * nearest-phrasing similarity and, for a pack with out-of-scope examples, the gap between the
 * nearest phrasing and the nearest example) that abstain on the most out-of-scope questions while
 * answering at least {@code minAnswered} of the in-scope ones. Each question is searched once per
 * fold (for the largest k) and every fusion is computed from its {@link SemanticRanker.Signals}.
 */
final class SemanticCalibration {

  /**
   * The chosen semantic numbers of one model, their k-fold figures, and the candidates they were
   * chosen from.
   */
  record Result(
      String modelId,
      SemanticSettings settings,
      Calibrator.Figures figures,
      SemanticCandidates candidates) {}

  /** One question's signals against its fold's index ({@code gold} -1: out of scope). */
  record SignalsRow(int fold, int gold, SemanticRanker.Signals signals) {}

  /** One question's answer at the chosen fusion. */
  record Answer(
      int fold,
      boolean inScope,
      boolean correct,
      double score,
      double similarity,
      double outOfScopeGap)
      implements Calibrator.Row {

    /** Answered under thresholds {@code {min score, min similarity, min out-of-scope gap}}. */
    boolean answers(double[] t) {
      return score >= t[0] && similarity >= t[1] && outOfScopeGap >= t[2];
    }
  }

  static final int[] KNN_K = {10, 20, 30, 50};
  private static final double[] KNN_TEMP = {0.01, 0.02, 0.03, 0.05};

  private SemanticCalibration() {}

  /**
   * @param keyword the keyword settings fused with (the ones {@link KeywordCalibration} chose)
   */
  static Result run(Calibrator calibrator, Embedder embedder, KeywordSettings keyword) {
    SemanticSettings base =
        SemanticSettings.defaults(embedder.modelId())
            .withKnn(KNN_K[KNN_K.length - 1], 0.02)
            .withThresholds(0, 0, 0, 0);
    embedAll(calibrator, embedder);
    List<SignalsRow> rows = new ArrayList<>();
    String[] entryIds = null;
    List<List<LabeledQuestion>> folds = calibrator.folds();
    for (int f = 0; f < folds.size(); f++) {
      try (SemanticFaqIndex index =
          SemanticFaqIndex.build(calibrator.foldPack(f), embedder, base, false, keyword)) {
        String[] ids = index.entryIds();
        if (entryIds == null) {
          entryIds = ids;
        } else if (!Arrays.equals(entryIds, ids)) {
          throw new IllegalStateException("the folds' indexes order the entries differently");
        }
        List<String> order = List.of(ids);
        for (LabeledQuestion q : folds.get(f)) {
          rows.add(row(index, embedder, f, q.text(), order.indexOf(q.faqId()), base));
        }
        for (String q : calibrator.outOfScope(f)) {
          rows.add(row(index, embedder, f, q, -1, base));
        }
      }
    }
    SemanticCandidates candidates = new SemanticCandidates(calibrator, rows, entryIds.length);
    SemanticSettings fusion = bestFusion(rows, base, entryIds.length);
    calibrator
        .log()
        .printf(
            Locale.ROOT,
            "semantic %s: out-of-fold top-1 %.2f %% with k %d, T %.2f, weights %.2f/%.2f/%.2f%n",
            embedder.modelId(),
            100 * candidates.score(fusion).top1(),
            fusion.knnK(),
            fusion.knnTemp(),
            fusion.wClassifier(),
            fusion.wKnn(),
            fusion.wKeyword());
    SemanticSettings chosen = candidates.withBestThresholds(fusion);
    return new Result(embedder.modelId(), chosen, candidates.score(chosen).figures(), candidates);
  }

  /** Embeds every text once, up front, so the folds' index builds find them cached. */
  private static void embedAll(Calibrator calibrator, Embedder embedder) {
    List<String> texts = new ArrayList<>();
    calibrator.folds().forEach(f -> texts.addAll(FaqEvaluation.texts(f)));
    texts.addAll(calibrator.outOfScope());
    texts.addAll(calibrator.pack().outOfScope());
    calibrator.pack().entries().forEach(e -> texts.add(e.question().strip()));
    long started = System.nanoTime();
    embedder.embedAll(texts);
    calibrator
        .log()
        .printf(
            "semantic %s: %d texts embedded in %d s%n",
            embedder.modelId(), texts.size(), (System.nanoTime() - started) / 1_000_000_000);
  }

  /** kNN size, temperature and weights (on a 0.05 grid) with the best pooled out-of-fold top-1. */
  private static SemanticSettings bestFusion(
      List<SignalsRow> rows, SemanticSettings base, int entries) {
    double bestTop1 = -1;
    SemanticSettings best = base;
    for (int k : KNN_K) {
      for (double temp : KNN_TEMP) {
        double[][] votes = new double[rows.size()][];
        for (int i = 0; i < rows.size(); i++) {
          votes[i] = Fusion.knnVote(rows.get(i).signals().nearest(), k, entries, temp);
        }
        for (int wc = 0; wc <= 20; wc++) {
          for (int wk = 0; wc + wk <= 20; wk++) {
            SemanticSettings tried =
                base.withKnn(k, temp).withWeights(wc / 20.0, wk / 20.0, (20 - wc - wk) / 20.0);
            int correct = 0;
            int inScope = 0;
            for (int i = 0; i < rows.size(); i++) {
              SignalsRow r = rows.get(i);
              if (r.gold() < 0) {
                continue;
              }
              inScope++;
              if (argmax(scores(r.signals(), votes[i], tried)) == r.gold()) {
                correct++;
              }
            }
            double top1 = correct / (double) inScope;
            if (top1 > bestTop1 + 1e-9) {
              bestTop1 = top1;
              best = tried;
            }
          }
        }
      }
    }
    return best;
  }

  static List<Answer> answers(List<SignalsRow> rows, SemanticSettings fusion, int entries) {
    List<Answer> answers = new ArrayList<>(rows.size());
    for (SignalsRow r : rows) {
      double[] vote =
          Fusion.knnVote(r.signals().nearest(), fusion.knnK(), entries, fusion.knnTemp());
      double[] scores = scores(r.signals(), vote, fusion);
      int top = argmax(scores);
      Fusion.Nearest nearest = r.signals().nearest();
      answers.add(
          new Answer(
              r.fold(),
              r.gold() >= 0,
              top == r.gold(),
              scores[top],
              nearest.maxSimilarity(),
              nearest.maxSimilarity() - nearest.outOfScope()));
    }
    return answers;
  }

  /**
   * The thresholds abstaining on the most out-of-scope questions while answering enough: minimum
   * fused score, nearest-phrasing similarity and (only with out-of-scope examples) gap to the
   * nearest example, on grids of 0.05, 0.01 and 0.01.
   */
  static double[] thresholds(List<Answer> answers, double minAnswered, boolean withoutExamples) {
    List<Double> gaps = new ArrayList<>(List.of(SemanticSettings.NO_OUT_OF_SCOPE_GAP));
    if (!withoutExamples) {
      for (int g = -10; g <= 20; g++) {
        gaps.add(g / 100.0);
      }
    }
    double[] chosen = {0, 0, SemanticSettings.NO_OUT_OF_SCOPE_GAP};
    double bestOos = -1;
    double bestAnswered = -1;
    for (double gap : gaps) {
      for (int s = 0; s <= 10; s++) {
        for (int m = 30; m <= 95; m++) {
          double[] t = {s * 0.05, m / 100.0, gap};
          double answered = Calibrator.share(answers, a -> a.answers(t), Answer::inScope);
          if (answered < minAnswered) {
            continue;
          }
          double oos = Calibrator.share(answers, a -> !a.answers(t), a -> !a.inScope());
          if (oos > bestOos + 1e-9
              || (Math.abs(oos - bestOos) < 1e-9 && answered > bestAnswered + 1e-9)) {
            bestOos = oos;
            bestAnswered = answered;
            chosen = t;
          }
        }
      }
    }
    return chosen;
  }

  private static SignalsRow row(
      SemanticFaqIndex index,
      Embedder embedder,
      int fold,
      String text,
      int gold,
      SemanticSettings base) {
    return new SignalsRow(
        fold,
        gold,
        index.signals(embedder.embed(text), index.keyword().search(text, 10), base.knnK()));
  }

  private static double[] scores(SemanticRanker.Signals s, double[] vote, SemanticSettings w) {
    return Fusion.scores(s.classifier(), vote, s.keyword(), w);
  }

  /** The first index of the highest value (ties: the lower index, as the fusion breaks by id). */
  private static int argmax(double[] v) {
    int arg = 0;
    for (int i = 1; i < v.length; i++) {
      if (v[i] > v[arg]) {
        arg = i;
      }
    }
    return arg;
  }
}
