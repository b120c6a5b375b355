package dev.questionflow.activities.generation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;

/**
 * The tokens each model reported for its answers, as metrics: {@code cs_model_tokens_total{model,
 * kind=prompt|completion}} and {@code cs_model_cost_total{model}} at the configured prices ({@code
 * cs.outcomes.prices.<model>.*}, per million tokens; a model without prices costs 0). Every
 * response received counts, also one the output checks reject afterwards: it was paid for.
 */
public final class ModelUsage {

  /** A model's prices per million prompt and completion tokens. */
  public record Prices(double promptPerMillion, double completionPerMillion) {
    public static final Prices FREE = new Prices(0, 0);

    /** The cost of these tokens (null counts: none reported). */
    public double cost(Integer promptTokens, Integer completionTokens) {
      return (orZero(promptTokens) * promptPerMillion
              + orZero(completionTokens) * completionPerMillion)
          / 1_000_000d;
    }
  }

  private final MeterRegistry meters;
  private final Map<String, Prices> prices;

  public ModelUsage(MeterRegistry meters, Map<String, Prices> prices) {
    this.meters = meters;
    this.prices = prices == null ? Map.of() : Map.copyOf(prices);
  }

  /** Counted in a private registry (tests, callers without metrics). */
  public static ModelUsage unmetered() {
    return new ModelUsage(new SimpleMeterRegistry(), Map.of());
  }

  /**
   * Counts one response's usage, as the model client reported it, and returns what it cost at the
   * configured prices (null: no usage reported).
   */
  public Double record(String model, Integer promptTokens, Integer completionTokens) {
    if (promptTokens == null && completionTokens == null) {
      return null;
    }
    String name = model == null ? "unknown" : model;
    double cost = prices.getOrDefault(name, Prices.FREE).cost(promptTokens, completionTokens);
    tokens(name, "prompt").increment(orZero(promptTokens));
    tokens(name, "completion").increment(orZero(completionTokens));
    Counter.builder("cs_model_cost")
        .description("what the models' answers cost at the configured prices")
        .tag("model", name)
        .register(meters)
        .increment(cost);
    return cost;
  }

  private Counter tokens(String model, String kind) {
    return Counter.builder("cs_model_tokens")
        .description("tokens the models reported for their answers")
        .tag("model", model)
        .tag("kind", kind)
        .register(meters);
  }

  private static long orZero(Integer count) {
    return count == null ? 0 : count;
  }
}
