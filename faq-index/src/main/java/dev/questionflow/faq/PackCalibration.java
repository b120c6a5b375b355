package dev.questionflow.faq;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A pack's own calibrated numbers: {@code packs/<packId>/calibration.properties} beside the pack,
 * written by {@code bin/faq calibrate} (k-fold cross-validation on the pack's training side, see
 * {@link Calibrator}). A number the file does not give falls back to the package defaults ({@code
 * keyword-calibration.properties}, {@code semantic-calibration.properties}).
 *
 * <p>Keys: {@code keyword.hits-per-faq}, {@code keyword.min-score}, {@code keyword.min-coverage},
 * {@code keyword.min-query-idf}, {@code keyword.min-margin}, and per embedding model {@code
 * semantic.<model-id>} with the nine numbers of {@link SemanticSettings} in its order.
 */
final class PackCalibration {

  static final String FILE = "calibration.properties";

  private static final Map<String, PackCalibration> LOADED = new ConcurrentHashMap<>();

  private final Properties values;

  private PackCalibration(Properties values) {
    this.values = values;
  }

  /** The calibration of a pack on the class path (none: every number is a package default). */
  static PackCalibration of(String packId) {
    return LOADED.computeIfAbsent(packId, PackCalibration::load);
  }

  private static PackCalibration load(String packId) {
    Properties properties = new Properties();
    String resource = "packs/" + packId + "/" + FILE;
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = PackCalibration.class.getClassLoader();
    }
    try (InputStream in = loader.getResourceAsStream(resource)) {
      if (in != null) {
        properties.load(new InputStreamReader(in, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
    return new PackCalibration(properties);
  }

  /** {@code base} with the pack's keyword numbers where it has them. */
  KeywordSettings keyword(KeywordSettings base) {
    return new KeywordSettings(
        base.k1(),
        base.b(),
        base.hitsToCollect(),
        (int) number("keyword.hits-per-faq", base.hitsPerFaq()),
        base.chatStopwords(),
        number("keyword.min-score", base.minScore()),
        number("keyword.min-coverage", base.minCoverage()),
        number("keyword.min-query-idf", base.minQueryIdf()),
        number("keyword.min-margin", base.minMargin()));
  }

  /** The pack's row for the model ({@code semantic.<model-id>}), or null. */
  String semanticRow(String modelId) {
    return values.getProperty("semantic." + modelId);
  }

  private double number(String key, double fallback) {
    String value = values.getProperty(key);
    return value == null ? fallback : Double.parseDouble(value.trim());
  }
}
