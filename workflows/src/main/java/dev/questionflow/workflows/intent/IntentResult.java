package dev.questionflow.workflows.intent;

import java.util.Map;

/**
 * @param source which classifier decided: "rules", "default" (later: "model")
 * @param modelsDown the models ("primary", "backup") that cannot answer right now, and why ("not
 *     configured", or a failure type such as "CircuitOpen"), as the worker saw them when it
 *     classified: the workflow then schedules no call that can only fail. Null when not reported
 *     (histories from before it was): every model is then tried.
 */
public record IntentResult(String intent, String source, Map<String, String> modelsDown) {

  public IntentResult(String intent, String source) {
    this(intent, source, null);
  }

  /** Why {@code model} cannot answer now, or null when it may (or nothing was reported). */
  public String whyDown(String model) {
    return modelsDown == null ? null : modelsDown.get(model);
  }
}
