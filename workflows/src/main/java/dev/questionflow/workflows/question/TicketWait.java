package dev.questionflow.workflows.question;

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
 */
public record TicketWait(
    String ticketId,
    Answer handedOver,
    long replyByEpochMillis,
    int priority,
    long questionStartedAtMillis,
    String intent,
    StaffReply replied) {}
