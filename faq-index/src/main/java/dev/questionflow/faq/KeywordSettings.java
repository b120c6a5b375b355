package dev.questionflow.faq;

import java.util.Properties;
import org.apache.lucene.search.similarities.BM25Similarity;

/**
 * The keyword matcher's BM25 and abstention settings (package-private: the calibration test and the
 * tuning harness vary them). The calibrated numbers are data: {@code
 * keyword-calibration.properties}, which says how they were measured.
 */
record KeywordSettings(
    float k1,
    float b,
    int hitsToCollect,
    int hitsPerFaq,
    boolean chatStopwords,
    double minScore,
    double minCoverage,
    double minQueryIdf,
    double minMargin) {

  private static final Properties CALIBRATION =
      PackageData.properties("keyword-calibration.properties");

  static final int DEFAULT_HITS_TO_COLLECT = intValue("hits-to-collect");
  static final int DEFAULT_HITS_PER_FAQ = intValue("hits-per-faq");

  /** Abstain when {@link FaqMatch#score()} is below this. */
  static final double DEFAULT_MIN_SCORE = value("en.min-score");

  /** Abstain when less than this share of the query's IDF mass is vocabulary of the best entry. */
  static final double DEFAULT_MIN_COVERAGE = value("en.min-coverage");

  /** Abstain when the query carries less information than this (sum of term IDFs). */
  static final double DEFAULT_MIN_QUERY_IDF = value("min-query-idf");

  /** Relative margin to the runner-up; 0 = off. */
  static final double DEFAULT_MIN_MARGIN = value("min-margin");

  /** Chinese ("zh") packs: lower score and coverage (see the properties file for why). */
  static final double DEFAULT_ZH_MIN_SCORE = value("zh.min-score");

  static final double DEFAULT_ZH_MIN_COVERAGE = value("zh.min-coverage");

  static final KeywordSettings DEFAULT =
      new KeywordSettings(
          (float) value("k1"),
          (float) value("b"),
          DEFAULT_HITS_TO_COLLECT,
          DEFAULT_HITS_PER_FAQ,
          true,
          DEFAULT_MIN_SCORE,
          DEFAULT_MIN_COVERAGE,
          DEFAULT_MIN_QUERY_IDF,
          DEFAULT_MIN_MARGIN);

  static final KeywordSettings DEFAULT_ZH =
      DEFAULT.withThresholds(
          DEFAULT_ZH_MIN_SCORE, DEFAULT_ZH_MIN_COVERAGE, DEFAULT_MIN_QUERY_IDF, DEFAULT_MIN_MARGIN);

  /**
   * The pack's calibrated settings ({@link PackCalibration}), the defaults for its language where
   * it has none.
   */
  static KeywordSettings defaultFor(FaqPack pack) {
    return PackCalibration.of(pack.id()).keyword(languageDefault(pack));
  }

  /** The package defaults for the pack's language, before the pack's own calibration. */
  static KeywordSettings languageDefault(FaqPack pack) {
    return "zh".equals(pack.language()) ? DEFAULT_ZH : DEFAULT;
  }

  /** BM25 with these {@code k1} and {@code b}: for writing the index and for searching it. */
  BM25Similarity similarity() {
    return new BM25Similarity(k1, b);
  }

  KeywordSettings withHitsPerFaq(int hits) {
    return new KeywordSettings(
        k1, b, hitsToCollect, hits, chatStopwords, minScore, minCoverage, minQueryIdf, minMargin);
  }

  KeywordSettings withThresholds(
      double minScore, double minCoverage, double minQueryIdf, double minMargin) {
    return new KeywordSettings(
        k1,
        b,
        hitsToCollect,
        hitsPerFaq,
        chatStopwords,
        minScore,
        minCoverage,
        minQueryIdf,
        minMargin);
  }

  KeywordSettings withStopwords(boolean chat) {
    return new KeywordSettings(
        k1, b, hitsToCollect, hitsPerFaq, chat, minScore, minCoverage, minQueryIdf, minMargin);
  }

  private static double value(String key) {
    String v = CALIBRATION.getProperty(key);
    if (v == null) {
      throw new IllegalStateException("keyword-calibration.properties has no " + key);
    }
    return Double.parseDouble(v.trim());
  }

  private static int intValue(String key) {
    return (int) value(key);
  }
}
