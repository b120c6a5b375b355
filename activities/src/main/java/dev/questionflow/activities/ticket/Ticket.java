package dev.questionflow.activities.ticket;

import java.time.Instant;
import java.util.List;

/**
 * A question handed over to a person, with the context needed to answer it.
 *
 * @param deliveredAt when the helpdesk took it (null: not delivered, or no helpdesk configured)
 * @param deliveryError set when the helpdesk did not take it after the question's retries (a dead
 *     letter, being redelivered by its DeadLetterTicket workflow); cleared on delivery
 * @param caller the caller that asked (null for tickets opened before callers were authenticated)
 */
public record Ticket(
    String ticketId,
    String workflowId,
    String sessionId,
    String userId,
    String question,
    String intent,
    int priority,
    List<String> candidateFaqIds,
    String reason,
    Status status,
    Instant createdAt,
    Instant deliveredAt,
    String agent,
    String reply,
    Instant answeredAt,
    String deliveryError,
    String caller) {

  public enum Status {
    OPEN,
    ANSWERED
  }

  Ticket delivered(Instant at) {
    return progressed(status, at, agent, reply, answeredAt, null);
  }

  Ticket answered(String byAgent, String replyText, Instant at) {
    return progressed(Status.ANSWERED, deliveredAt, byAgent, replyText, at, deliveryError);
  }

  Ticket undelivered(String error) {
    return progressed(
        status, deliveredAt, agent, reply, answeredAt, error == null ? "undelivered" : error);
  }

  /** The same ticket with the customer's question and the reply replaced (sealed or opened). */
  Ticket withText(String newQuestion, String newReply) {
    return new Ticket(
        ticketId,
        workflowId,
        sessionId,
        userId,
        newQuestion,
        intent,
        priority,
        candidateFaqIds,
        reason,
        status,
        createdAt,
        deliveredAt,
        agent,
        newReply,
        answeredAt,
        deliveryError,
        caller);
  }

  /** This ticket with its changing part replaced: what the question was stays as it was. */
  private Ticket progressed(
      Status newStatus,
      Instant newDeliveredAt,
      String newAgent,
      String newReply,
      Instant newAnsweredAt,
      String newDeliveryError) {
    return new Ticket(
        ticketId,
        workflowId,
        sessionId,
        userId,
        question,
        intent,
        priority,
        candidateFaqIds,
        reason,
        newStatus,
        createdAt,
        newDeliveredAt,
        newAgent,
        newReply,
        newAnsweredAt,
        newDeliveryError,
        caller);
  }
}
