package dev.questionflow.api.config;

import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The outcome stream for analytics ({@code cs.outcomes}, docs/configuration.md).
 *
 * @param enabled whether finished questions are recorded
 * @param maxLength about how many records the stream keeps (MAXLEN ~)
 * @param retention how long records are kept (MINID ~, and the duplicate markers' lifetime)
 * @param queueCapacity records waiting for the writer; beyond it they are dropped and counted
 * @param prices per model name: prices per million prompt and completion tokens
 */
@ConfigurationProperties("cs.outcomes")
public record OutcomesProperties(
    Boolean enabled,
    Long maxLength,
    Duration retention,
    Integer queueCapacity,
    Map<String, Price> prices) {

  public OutcomesProperties {
    enabled = enabled == null || enabled;
    maxLength = maxLength == null ? 1_000_000L : maxLength;
    retention = retention == null ? Duration.ofDays(30) : retention;
    queueCapacity = queueCapacity == null ? 10_000 : queueCapacity;
    prices = prices == null ? Map.of() : Map.copyOf(prices);
  }

  public record Price(double promptPerMillion, double completionPerMillion) {}
}
