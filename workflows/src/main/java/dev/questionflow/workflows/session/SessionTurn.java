package dev.questionflow.workflows.session;

/**
 * @param answer the answer text given (null when the question was handed over without one)
 */
public record SessionTurn(
    String sessionId, String workflowId, String question, String answer, String level) {}
