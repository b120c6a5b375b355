package dev.questionflow.workflows.question;

import dev.questionflow.workflows.callback.CallbackTarget;
import dev.questionflow.workflows.outcome.QuestionRecord;

/**
 * A handed-over question waiting for a person, as its question workflow passes it on ({@link
 * TicketReplyWorkflow}).
 *
 * @param ticketId the ticket a staff reply must name
 * @param handedOver the answer the customer has meanwhile (the promise of a reply)
 * @param replyByEpochMillis the end of the reply window: after it the hand-over answer stays final
 * @param priority the ticket steps' priority (the question's at the hand-over)
 * @param questionStartedAtMillis when the question was accepted (the answer's elapsed time)
 * @param intent the classified intent, shown by status reads
 * @param replied a staff reply that came before the hand-over was passed on (null: none)
 * @param known the question's analytics record at the hand-over, finished by this run (null: a wait
 *     passed on before records)
 * @param caller the caller that asked, whose secret signs its callbacks (null: no callbacks)
 * @param callback where the person's answer is called back (null: none, as in waits passed on
 *     before callbacks)
 */
public record TicketWait(
    String ticketId,
    Answer handedOver,
    long replyByEpochMillis,
    int priority,
    long questionStartedAtMillis,
    String intent,
    StaffReply replied,
    QuestionRecord known,
    String caller,
    CallbackTarget callback) {

  public TicketWait(
      String ticketId,
      Answer handedOver,
      long replyByEpochMillis,
      int priority,
      long questionStartedAtMillis,
      String intent,
      StaffReply replied,
      QuestionRecord known) {
    this(
        ticketId,
        handedOver,
        replyByEpochMillis,
        priority,
        questionStartedAtMillis,
        intent,
        replied,
        known,
        null,
        null);
  }

  public TicketWait(
      String ticketId,
      Answer handedOver,
      long replyByEpochMillis,
      int priority,
      long questionStartedAtMillis,
      String intent,
      StaffReply replied) {
    this(
        ticketId,
        handedOver,
        replyByEpochMillis,
        priority,
        questionStartedAtMillis,
        intent,
        replied,
        null);
  }
}
