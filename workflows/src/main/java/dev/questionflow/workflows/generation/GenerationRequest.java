package dev.questionflow.workflows.generation;

import dev.questionflow.workflows.retrieval.FaqHit;
import java.util.List;

/**
 * @param knowledge retrieved FAQ entries to ground the answer in; empty means an LLM-only answer
 * @param model which configured model answers: {@link ModelFailures#PRIMARY} or {@link
 *     ModelFailures#BACKUP}
 * @param sessionId whose history (the last turns) the model sees as context; null = none
 */
public record GenerationRequest(
    String question, List<FaqHit> knowledge, String model, String sessionId) {

  public GenerationRequest {
    model = model == null ? ModelFailures.PRIMARY : model;
    knowledge = knowledge == null ? List.of() : knowledge;
  }

  public GenerationRequest(String question, List<FaqHit> knowledge, String model) {
    this(question, knowledge, model, null);
  }
}
