package dev.questionflow.workflows.question;

/**
 * The uniform answer shape, whatever rung produced it.
 *
 * @param notice set on every degraded answer, shown to the customer ("simplified mode")
 * @param reason why the answer is not a full RAG answer (for staff and logs, e.g. "primary model:
 *     ModelTimeout; backup model: not configured"), null for a full answer
 * @param revision 1 for a question's first answer, 2 for the fuller model answer that replaced a
 *     quick one (an upgrade); answers recorded before revisions read as 1
 */
public record Answer(
    String text,
    AnswerLevel level,
    String faqId,
    String ticketId,
    String notice,
    String reason,
    int revision) {

  public Answer {
    revision = Math.max(1, revision);
  }

  public Answer(
      String text, AnswerLevel level, String faqId, String ticketId, String notice, String reason) {
    this(text, level, faqId, ticketId, notice, reason, 1);
  }

  /** The same answer with the reason recorded. */
  public Answer withReason(String why) {
    return new Answer(text, level, faqId, ticketId, notice, why, revision);
  }

  /** The same answer with another notice for the customer. */
  public Answer withNotice(String customerNotice) {
    return new Answer(text, level, faqId, ticketId, customerNotice, reason, revision);
  }

  /** The same answer as the given revision. */
  public Answer asRevision(int number) {
    return new Answer(text, level, faqId, ticketId, notice, reason, number);
  }
}
