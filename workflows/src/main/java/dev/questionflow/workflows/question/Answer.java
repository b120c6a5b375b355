package dev.questionflow.workflows.question;

/**
 * The uniform answer shape, whatever rung produced it.
 *
 * @param notice set on every degraded answer, shown to the customer ("simplified mode")
 * @param reason why the answer is not a full RAG answer (for staff and logs, e.g. "primary model:
 *     ModelTimeout; backup model: not configured"), null for a full answer
 */
public record Answer(
    String text, AnswerLevel level, String faqId, String ticketId, String notice, String reason) {

  /** The same answer with the reason recorded. */
  public Answer withReason(String why) {
    return new Answer(text, level, faqId, ticketId, notice, why);
  }
}
