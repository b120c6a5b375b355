package dev.questionflow.faq;

import java.util.Properties;

/**
 * Fusion weights, kNN settings and abstention thresholds of {@link SemanticFaqIndex}. The defaults
 * per model are data ({@code semantic-calibration.properties}); the tuning harness varies them.
 *
 * @param knnK nearest phrasings collected
 * @param knnTemp temperature of the kNN vote {@code exp(cos / T)}
 * @param wClassifier weight of the classifier probability
 * @param wKnn weight of the kNN vote
 * @param wKeyword weight of the normalised BM25 score
 * @param minScore abstain below this fused score
 * @param minSimilarity abstain when the nearest phrasing's cosine similarity is below this
 * @param confidentSimilarity between {@code minSimilarity} and this, answer only when BM25 agrees
 *     that the question is covered: the best {@link KeywordFaqIndex} score is at least {@code
 *     minKeyword}
 * @param minKeyword see {@code confidentSimilarity}
 * @param minOutOfScopeGap abstain when the nearest of the pack's out-of-scope examples found among
 *     the {@code knnK} nearest documents is not at least this much less similar than the nearest
 *     phrasing ({@link FaqPack#outOfScope()}; -2, below any cosine difference, when unused)
 */
record SemanticSettings(
    int knnK,
    double knnTemp,
    double wClassifier,
    double wKnn,
    double wKeyword,
    double minScore,
    double minSimilarity,
    double confidentSimilarity,
    double minKeyword,
    double minOutOfScopeGap,
    SoftmaxClassifier.Params classifier) {

  /** A {@link #minOutOfScopeGap} that never abstains: cosine differences are at least -2. */
  static final double NO_OUT_OF_SCOPE_GAP = -2;

  private static final Properties CALIBRATION =
      PackageData.properties("semantic-calibration.properties");

  // the ten numbers in the record's order, as the calibration file lists them: one place builds
  // the record from them, so the withers do not repeat every component
  private static final int KNN_K = 0;
  private static final int KNN_TEMP = 1;
  private static final int W_CLASSIFIER = 2;
  private static final int MIN_SCORE = 5;
  private static final int MIN_OUT_OF_SCOPE_GAP = 9;

  private double[] values() {
    return new double[] {
      knnK,
      knnTemp,
      wClassifier,
      wKnn,
      wKeyword,
      minScore,
      minSimilarity,
      confidentSimilarity,
      minKeyword,
      minOutOfScopeGap
    };
  }

  private static SemanticSettings of(double[] v, SoftmaxClassifier.Params classifier) {
    return new SemanticSettings(
        (int) v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], classifier);
  }

  /** These values from {@code index} on, the others as they are. */
  private SemanticSettings with(int index, double... replaced) {
    double[] v = values();
    System.arraycopy(replaced, 0, v, index, replaced.length);
    return of(v, classifier);
  }

  SemanticSettings withWeights(double wClassifier, double wKnn, double wKeyword) {
    return with(W_CLASSIFIER, wClassifier, wKnn, wKeyword);
  }

  SemanticSettings withKnn(int knnK, double knnTemp) {
    return with(KNN_K, knnK, knnTemp);
  }

  SemanticSettings withThresholds(
      double minScore, double minSimilarity, double confidentSimilarity, double minKeyword) {
    return with(MIN_SCORE, minScore, minSimilarity, confidentSimilarity, minKeyword);
  }

  SemanticSettings withOutOfScopeGap(double minOutOfScopeGap) {
    return with(MIN_OUT_OF_SCOPE_GAP, minOutOfScopeGap);
  }

  SemanticSettings withClassifier(SoftmaxClassifier.Params p) {
    return of(values(), p);
  }

  /**
   * The abstention rule (see the record comment).
   *
   * @param outOfScopeSimilarity the nearest out-of-scope example's cosine similarity among the
   *     {@code knnK} nearest documents, or {@link Fusion.Nearest#NONE} when none is among them
   */
  boolean answers(
      double score, double maxSimilarity, double keywordTop, double outOfScopeSimilarity) {
    return score >= minScore
        && maxSimilarity >= minSimilarity
        && (maxSimilarity >= confidentSimilarity || keywordTop >= minKeyword)
        && maxSimilarity - outOfScopeSimilarity >= minOutOfScopeGap;
  }

  /**
   * The model's calibrated defaults ({@code semantic-calibration.properties}: how they were tuned
   * is written there), or the {@code default} row for a model without its own.
   */
  static SemanticSettings defaults(String modelId) {
    return parse(modelId, CALIBRATION.getProperty(modelId, CALIBRATION.getProperty("default")));
  }

  /** The pack's calibrated row for the model ({@link PackCalibration}), else {@link #defaults}. */
  static SemanticSettings forPack(String packId, String modelId) {
    String row = PackCalibration.of(packId).semanticRow(modelId);
    return row == null ? defaults(modelId) : parse(modelId, row);
  }

  /** The row as {@code semantic-calibration.properties} and the pack files write it. */
  String row() {
    double[] v = values();
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < v.length; i++) {
      out.append(i == 0 ? "" : " ").append(i == KNN_K ? String.valueOf((int) v[i]) : trim(v[i]));
    }
    return out.toString();
  }

  private static String trim(double v) {
    String s = String.format(java.util.Locale.ROOT, "%.4f", v);
    s = s.replaceAll("0+$", "");
    return s.endsWith(".") ? s + "0" : s;
  }

  static SemanticSettings parse(String modelId, String row) {
    double[] v =
        java.util.Arrays.stream(row.trim().split("\\s+"))
            .mapToDouble(Double::parseDouble)
            .toArray();
    if (v.length == 9) { // written before out-of-scope examples: none to keep a gap to
      v = java.util.Arrays.copyOf(v, 10);
      v[MIN_OUT_OF_SCOPE_GAP] = NO_OUT_OF_SCOPE_GAP;
    }
    if (v.length != 10) {
      throw new IllegalStateException(
          "semantic-calibration.properties: " + modelId + " needs 10 values (or 9, without a gap)");
    }
    return of(v, SoftmaxClassifier.Params.DEFAULT);
  }
}
