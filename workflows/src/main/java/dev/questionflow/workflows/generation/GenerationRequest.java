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
 */
public record GenerationRequest(
    String question,
    List<FaqHit> knowledge,
    String model,
    String sessionId,
    long queueDeadlineEpochMillis) {

  public GenerationRequest {
    model = model == null ? ModelFailures.PRIMARY : model;
    knowledge = knowledge == null ? List.of() : knowledge;
  }

  public GenerationRequest(String question, List<FaqHit> knowledge, String model) {
    this(question, knowledge, model, null);
  }

  public GenerationRequest(
      String question, List<FaqHit> knowledge, String model, String sessionId) {
    this(question, knowledge, model, sessionId, 0);
  }

  /** The same request, no call to start after {@code epochMillis}. */
  public GenerationRequest withQueueDeadline(long epochMillis) {
    return new GenerationRequest(question, knowledge, model, sessionId, epochMillis);
  }
}
