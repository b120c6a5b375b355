package dev.questionflow.api.question;

/** The 202 answer: the question is durable and has an ID; nothing waited for the model. */
public record Accepted(String workflowId, String statusUrl, boolean duplicate) {}
