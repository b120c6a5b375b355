package dev.questionflow.workflows.deadletter;

/**
 * @param delivered whether the helpdesk has taken the ticket
 * @param attempts failed redeliveries so far
 * @param lastError the last delivery failure
 * @param nextAttemptInSeconds wait before the next attempt (0 while delivering or once delivered)
 */
public record DeadLetterStatus(
    String ticketId,
    boolean delivered,
    int attempts,
    String lastError,
    long nextAttemptInSeconds) {}
