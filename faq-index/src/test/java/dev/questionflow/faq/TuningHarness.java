package dev.questionflow.faq;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Exploration used to choose the keyword level's defaults: prints figures, asserts nothing, so it
 * is a tool, not a test. Run from the repository root:
 *
 * <pre>
 * mvn -B -q -pl faq-index test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.questionflow.faq.TuningHarness [-Dfaq.tune.grid=true]
 * </pre>
 */
final class TuningHarness {

  public static void main(String[] args) {
    if (!Datasets.banking77Present() || !Datasets.oosPresent()) {
      System.err.println("the BANKING77 and CLINC150 datasets are not under " + Datasets.root());
      System.exit(2);
    }
    new TuningHarness().explore();
  }

  void explore() {
    FaqPack pack = FaqPacks.loadFromClasspath("banking77");
    Datasets.Split split = Datasets.stratified(Datasets.banking77Train(), 0.10, 42);
    FaqPack trainPack = Datasets.withPhrasings(pack, split.train());
    List<String> oosTrain = Datasets.oos("oos_train.tsv");
    List<String> oosVal = Datasets.oos("oos_val.tsv");

    float[][] kb = {
      {1.2f, 0.75f},
      {1.2f, 0.5f},
      {1.2f, 0.3f},
      {1.2f, 1.0f},
      {0.8f, 0.75f},
      {1.6f, 0.75f},
      {2.0f, 0.75f},
      {0.8f, 0.5f}
    };
    int[] perFaq = {1, 2, 3, 5, 10, 100};
    for (float[] p : Boolean.getBoolean("faq.tune.grid") ? kb : new float[0][]) {
      StringBuilder line = new StringBuilder(String.format("k1=%.1f b=%.2f:", p[0], p[1]));
      for (int k : perFaq) {
        var s = new KeywordSettings(p[0], p[1], 100, k, true, 0, 0, 0, 0);
        try (KeywordFaqIndex idx = KeywordFaqIndex.build(trainPack, s)) {
          line.append(String.format("  k=%d %.4f", k, accuracy(idx, split.validation())));
        }
      }
      System.out.println(line);
    }

    var s =
        KeywordSettings.DEFAULT
            .withThresholds(0, 0, 0, 0)
            .withStopwords(!Boolean.getBoolean("faq.tune.plainStopwords"));
    try (KeywordFaqIndex idx = KeywordFaqIndex.build(trainPack, s)) {
      System.out.println("DEFAULT settings " + s + " acc=" + accuracy(idx, split.validation()));
      sweep(
          "score",
          idx,
          split.validation(),
          oosTrain,
          oosVal,
          List.of(0.0, 0.1, 0.15, 0.2, 0.22, 0.25, 0.28, 0.3, 0.33, 0.35, 0.4, 0.45, 0.5),
          c -> c.get(0).score());
      sweep(
          "bestHit/max",
          idx,
          split.validation(),
          oosTrain,
          oosVal,
          List.of(0.0, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5),
          c -> c.get(0).bestHit() / c.get(0).maxPossible());
      for (double pw : List.of(0.0, 0.5, 1.0, 2.0, 4.0)) {
        int ok = 0;
        for (Datasets.Example e : split.validation()) {
          var c = idx.rank(e.text(), 10);
          var bestC =
              c.stream()
                  .max(
                      java.util.Comparator.comparingDouble(
                          x -> x.aggregate() * Math.pow(x.coverage(), pw)))
                  .map(KeywordFaqIndex.Candidate::faqId);
          if (bestC.isPresent() && bestC.get().equals(e.label())) {
            ok++;
          }
        }
        System.out.printf(
            "rerank aggregate*coverage^%.1f acc %.4f%n",
            pw, ok / (double) split.validation().size());
      }
      for (String q :
          List.of(
              "I",
              "how do i",
              "card",
              "my card",
              "transfer",
              "pin",
              "top up",
              "fees",
              "exchange rate",
              "can you help me",
              "card",
              "hello",
              "hi there",
              "money",
              "what is the airspeed velocity of an unladen swallow?",
              "thanks",
              "ok",
              "yes")) {
        var c = idx.rank(q, 2);
        System.out.printf(
            "PROBE %-40s %s%n",
            q,
            c.isEmpty()
                ? "-"
                : String.format(
                    "score %.3f cov %.3f max %.2f %s margin %.3f",
                    c.get(0).score(),
                    c.get(0).coverage(),
                    c.get(0).maxPossible(),
                    c.get(0).faqId(),
                    c.size() < 2 ? 1 : (c.get(0).score() - c.get(1).score()) / c.get(0).score()));
      }
      sweep(
          "coverage",
          idx,
          split.validation(),
          oosTrain,
          oosVal,
          List.of(0.0, 0.5, 0.6, 0.62, 0.65, 0.68, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95),
          c -> c.get(0).coverage());
      for (double cov : List.of(0.6, 0.65, 0.7)) {
        sweep(
            "cov" + cov + "+score",
            idx,
            split.validation(),
            oosTrain,
            oosVal,
            List.of(0.0, 0.1, 0.12, 0.15, 0.18, 0.2),
            c -> c.get(0).coverage() >= cov ? c.get(0).score() : -1);
      }
      for (double m : List.of(0.0, 0.01, 0.02, 0.03, 0.05, 0.1)) {
        sweep(
            "defaults+margin" + m,
            idx,
            split.validation(),
            oosTrain,
            oosVal,
            List.of(0.08),
            c ->
                c.get(0).coverage() >= 0.6
                        && c.get(0).maxPossible() >= 3.0
                        && (c.size() < 2
                            || (c.get(0).score() - c.get(1).score()) / c.get(0).score() >= m)
                    ? c.get(0).score()
                    : -1);
      }
      for (double info : List.of(0.0, 2.0, 3.0, 3.5, 4.0, 5.0)) {
        sweep(
            "cov.6+info" + info,
            idx,
            split.validation(),
            oosTrain,
            oosVal,
            List.of(0.0, 0.08, 0.1, 0.12),
            c ->
                c.get(0).coverage() >= 0.6 && c.get(0).maxPossible() >= info
                    ? c.get(0).score()
                    : -1);
      }
      sweep(
          "cov*score",
          idx,
          split.validation(),
          oosTrain,
          oosVal,
          List.of(0.05, 0.08, 0.1, 0.12, 0.14, 0.16, 0.18, 0.2),
          c -> c.get(0).coverage() * c.get(0).score());
      sweep(
          "margin",
          idx,
          split.validation(),
          oosTrain,
          oosVal,
          List.of(0.0, 0.05, 0.1, 0.15, 0.2, 0.3),
          c -> c.size() < 2 ? 1 : (c.get(0).score() - c.get(1).score()) / c.get(0).score());
      sweep(
          "aggregate",
          idx,
          split.validation(),
          oosTrain,
          oosVal,
          List.of(0.0, 5.0, 8.0, 10.0, 12.0, 15.0, 20.0),
          c -> c.get(0).aggregate());
      for (String q : oosVal.subList(0, 30)) {
        var c = idx.rank(q, 2);
        System.out.printf(
            "OOS %-60s %s%n",
            q,
            c.isEmpty()
                ? "-"
                : String.format(
                    "%.3f %.3f %s", c.get(0).score(), c.get(0).coverage(), c.get(0).faqId()));
      }
    }
  }

  private static double accuracy(KeywordFaqIndex idx, List<Datasets.Example> validation) {
    int ok = 0;
    for (Datasets.Example e : validation) {
      var r = idx.rank(e.text(), 1);
      if (!r.isEmpty() && r.get(0).faqId().equals(e.label())) {
        ok++;
      }
    }
    return ok / (double) validation.size();
  }

  private static void sweep(
      String name,
      KeywordFaqIndex idx,
      List<Datasets.Example> validation,
      List<String> oosTrain,
      List<String> oosVal,
      List<Double> thresholds,
      ToDoubleFunction<List<KeywordFaqIndex.Candidate>> feature) {
    for (double t : thresholds) {
      int answered = 0;
      int correct = 0;
      for (Datasets.Example e : validation) {
        var c = idx.rank(e.text(), 2);
        if (!c.isEmpty() && feature.applyAsDouble(c) >= t) {
          answered++;
          if (c.get(0).faqId().equals(e.label())) {
            correct++;
          }
        }
      }
      System.out.printf(
          "%-12s >= %.2f  in-scope answered %.3f  correct-of-all %.3f  precision %.3f  "
              + "OOS abstain train %.2f val %.2f%n",
          name,
          t,
          answered / (double) validation.size(),
          correct / (double) validation.size(),
          answered == 0 ? 0 : correct / (double) answered,
          abstain(idx, oosTrain, t, feature),
          abstain(idx, oosVal, t, feature));
    }
  }

  private static double abstain(
      KeywordFaqIndex idx,
      List<String> oos,
      double t,
      ToDoubleFunction<List<KeywordFaqIndex.Candidate>> feature) {
    int n = 0;
    for (String q : oos) {
      var c = idx.rank(q, 2);
      if (c.isEmpty() || feature.applyAsDouble(c) < t) {
        n++;
      }
    }
    return n / (double) oos.size();
  }
}
