package dev.questionflow.workflows.question;

/**
 * What a caller sees while the question is in flight and after it closes. {@code queuePosition} and
 * {@code etaSeconds} are null while there is no queue to report.
 */
public record QuestionStatus(
    String workflowId,
    Stage stage,
    Integer queuePosition,
    Integer etaSeconds,
    String intent,
    Answer answer) {}
