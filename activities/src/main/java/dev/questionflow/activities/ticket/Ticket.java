package dev.questionflow.activities.ticket;

import java.time.Instant;
import java.util.List;

/** A question handed over to a person, with the context needed to answer it. */
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
    Instant answeredAt) {

  public enum Status {
    OPEN,
    ANSWERED
  }

  Ticket delivered(Instant at) {
    return new Ticket(ticketId, workflowId, sessionId, userId, question, intent, priority, candidateFaqIds, reason,
        status, createdAt, at, agent, reply, answeredAt);
  }

  Ticket answered(String byAgent, String replyText, Instant at) {
    return new Ticket(ticketId, workflowId, sessionId, userId, question, intent, priority, candidateFaqIds, reason,
        Status.ANSWERED, createdAt, deliveredAt, byAgent, replyText, at);
  }
}
