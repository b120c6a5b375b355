package dev.questionflow.workflows.question;

public record StaffReply(String ticketId, String agent, String text) {}
