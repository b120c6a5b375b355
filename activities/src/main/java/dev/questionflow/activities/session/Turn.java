package dev.questionflow.activities.session;

import java.time.Instant;

/**
 * One answered turn of a session's conversation history.
 *
 * @param workflowId the question's workflow ID (a retried finish does not record the turn twice)
 * @param question the customer's question
 * @param answer the answer given
 * @param level the answer level that produced it (RAG, LLM, FAQ, ...)
 * @param at when the turn was recorded
 */
public record Turn(String workflowId, String question, String answer, String level, Instant at) {

  /** The same turn with its question and answer replaced (sealed or opened for storage). */
  public Turn withText(String newQuestion, String newAnswer) {
    return new Turn(workflowId, newQuestion, newAnswer, level, at);
  }
}
