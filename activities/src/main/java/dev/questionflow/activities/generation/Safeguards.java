package dev.questionflow.activities.generation;

import dev.questionflow.activities.privacy.Redactor;

/**
 * What stands between the customer and the model, and between the model and the customer.
 *
 * @param redactor removes personal data from the question and history before they leave for the
 *     model, and from the answer
 * @param canary the system prompt's canary; an answer that contains it is rejected as a prompt leak
 * @param links the hosts an answer may link to; an answer with any other link is rejected
 */
public record Safeguards(Redactor redactor, PromptCanary canary, LinkAllowList links) {

  /** Every kind of personal data redacted, a random canary, no links allowed. */
  public static Safeguards defaults() {
    return new Safeguards(Redactor.ALL_KINDS, PromptCanary.random(), LinkAllowList.NONE);
  }
}
