package dev.questionflow.workflows.generation;

import dev.questionflow.workflows.retrieval.FaqHit;
import java.util.List;

/**
 * @param knowledge retrieved FAQ entries to ground the answer in; empty means an LLM-only answer
 * @param model which configured model answers: {@link ModelFailures#PRIMARY} or {@link
 *     ModelFailures#BACKUP}
 * @param sessionId whose history (the last turns) the model sees as context; null = none
 * @param queueDeadlineEpochMillis no call to the model starts after this moment (the question's
 *     queue deadline: its customer has had the prepared answer by then); 0 = none
 * @param callBudgetMillis a call that started is abandoned after this long (the chain budget, from
 *     the call's start rather than the question's, since the wait in line is bounded by the
 *     deadline); 0 = only the client's own timeout
 */
public record GenerationRequest(
    String question,
    List<FaqHit> knowledge,
    String model,
    String sessionId,
    long queueDeadlineEpochMillis,
    long callBudgetMillis) {

  public GenerationRequest {
    model = model == null ? ModelFailures.PRIMARY : model;
    knowledge = knowledge == null ? List.of() : knowledge;
  }

  public GenerationRequest(String question, List<FaqHit> knowledge, String model) {
    this(question, knowledge, model, null);
  }

  public GenerationRequest(
      String question, List<FaqHit> knowledge, String model, String sessionId) {
    this(question, knowledge, model, sessionId, 0, 0);
  }

  /**
   * The same request, no call to start after {@code epochMillis} and none to run longer than {@code
   * budgetMillis}.
   */
  public GenerationRequest withLimits(long epochMillis, long budgetMillis) {
    return new GenerationRequest(question, knowledge, model, sessionId, epochMillis, budgetMillis);
  }
}
