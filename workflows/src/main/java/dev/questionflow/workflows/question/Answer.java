package dev.questionflow.workflows.question;

/** The uniform answer shape, whatever rung produced it. {@code notice} is set on every degraded answer. */
public record Answer(String text, AnswerLevel level, String faqId, String ticketId, String notice) {}
