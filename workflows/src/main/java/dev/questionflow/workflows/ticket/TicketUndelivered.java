package dev.questionflow.workflows.ticket;

/**
 * @param reason the last delivery failure
 */
public record TicketUndelivered(String ticketId, String reason) {}
