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
    SoftmaxClassifier.Params classifier) {

  private static final Properties CALIBRATION =
      PackageData.properties("semantic-calibration.properties");

  SemanticSettings withWeights(double wClassifier, double wKnn, double wKeyword) {
    return copy(
        knnK,
        knnTemp,
        wClassifier,
        wKnn,
        wKeyword,
        minScore,
        minSimilarity,
        confidentSimilarity,
        minKeyword,
        classifier);
  }

  SemanticSettings withKnn(int knnK, double knnTemp) {
    return copy(
        knnK,
        knnTemp,
        wClassifier,
        wKnn,
        wKeyword,
        minScore,
        minSimilarity,
        confidentSimilarity,
        minKeyword,
        classifier);
  }

  SemanticSettings withThresholds(
      double minScore, double minSimilarity, double confidentSimilarity, double minKeyword) {
    return copy(
        knnK,
        knnTemp,
        wClassifier,
        wKnn,
        wKeyword,
        minScore,
        minSimilarity,
        confidentSimilarity,
        minKeyword,
        classifier);
  }

  SemanticSettings withClassifier(SoftmaxClassifier.Params p) {
    return copy(
        knnK,
        knnTemp,
        wClassifier,
        wKnn,
        wKeyword,
        minScore,
        minSimilarity,
        confidentSimilarity,
        minKeyword,
        p);
  }

  private static SemanticSettings copy(
      int knnK,
      double knnTemp,
      double wClassifier,
      double wKnn,
      double wKeyword,
      double minScore,
      double minSimilarity,
      double confidentSimilarity,
      double minKeyword,
      SoftmaxClassifier.Params classifier) {
    return new SemanticSettings(
        knnK,
        knnTemp,
        wClassifier,
        wKnn,
        wKeyword,
        minScore,
        minSimilarity,
        confidentSimilarity,
        minKeyword,
        classifier);
  }

  /** The abstention rule (see the record comment). */
  boolean answers(double score, double maxSimilarity, double keywordTop) {
    return score >= minScore
        && maxSimilarity >= minSimilarity
        && (maxSimilarity >= confidentSimilarity || keywordTop >= minKeyword);
  }

  /**
   * The model's calibrated defaults ({@code semantic-calibration.properties}: how they were tuned
   * is written there), or the {@code default} row for a model without its own.
   */
  static SemanticSettings defaults(String modelId) {
    String row = CALIBRATION.getProperty(modelId, CALIBRATION.getProperty("default"));
    String[] v = row.trim().split("\\s+");
    if (v.length != 9) {
      throw new IllegalStateException(
          "semantic-calibration.properties: " + modelId + " needs 9 values");
    }
    return new SemanticSettings(
        Integer.parseInt(v[0]),
        Double.parseDouble(v[1]),
        Double.parseDouble(v[2]),
        Double.parseDouble(v[3]),
        Double.parseDouble(v[4]),
        Double.parseDouble(v[5]),
        Double.parseDouble(v[6]),
        Double.parseDouble(v[7]),
        Double.parseDouble(v[8]),
        SoftmaxClassifier.Params.DEFAULT);
  }
}
