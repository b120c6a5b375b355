package dev.questionflow.workflows.generation;

/**
 * @param outcome ANSWERED with text, or NOT_CONFIGURED when no model endpoint is set (the ladder
 *     moves on; no text is invented)
 * @param promptTokens the prompt tokens the model reported for this answer (null: not reported, or
 *     a result recorded before token counts)
 * @param completionTokens the completion tokens it reported (null as above)
 * @param cost what those tokens cost at the prices configured when the call ran ({@code
 *     cs.outcomes.prices}; null: no tokens reported, or a result recorded before costs)
 */
public record GenerationResult(
    Outcome outcome,
    String text,
    String model,
    Integer promptTokens,
    Integer completionTokens,
    Double cost) {

  /** The answer's reason for a model that is not configured ("primary model: not configured"). */
  public static final String NOT_CONFIGURED_REASON = "not configured";

  public enum Outcome {
    ANSWERED,
    NOT_CONFIGURED
  }

  public GenerationResult(Outcome outcome, String text, String model) {
    this(outcome, text, model, null, null, null);
  }

  public static GenerationResult notConfigured() {
    return new GenerationResult(Outcome.NOT_CONFIGURED, null, null);
  }

  public boolean answered() {
    return outcome == Outcome.ANSWERED;
  }
}
