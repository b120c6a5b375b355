package dev.questionflow.workflows.ticket;

public record TicketClosing(String ticketId, String agent, String replyText) {}
