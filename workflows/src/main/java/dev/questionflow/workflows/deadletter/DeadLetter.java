package dev.questionflow.workflows.deadletter;

import dev.questionflow.workflows.question.QuestionPolicy.DeadLetterPolicy;

/**
 * @param questionWorkflowId the question that was handed over
 * @param reason the delivery failure that made it a dead letter
 * @param attempts failed redeliveries so far (carried over continue-as-new)
 */
public record DeadLetter(
    String ticketId,
    String questionWorkflowId,
    String reason,
    int attempts,
    DeadLetterPolicy policy) {}
