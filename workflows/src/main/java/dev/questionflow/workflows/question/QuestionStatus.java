package dev.questionflow.workflows.question;

import dev.questionflow.workflows.lane.LaneSnapshot;

/**
 * What a caller sees while the question is in flight and after it closes. {@code queuePosition} and
 * {@code etaSeconds} are null while there is no queue to report.
 *
 * @param deadline the question's queue deadline (ISO-8601) while it is in a model's line: its call
 *     starts by then or the customer gets the prepared answer then; null otherwise
 * @param upgrading a quick answer was given and a fuller model answer is still expected
 */
public record QuestionStatus(
    String workflowId,
    Stage stage,
    Integer queuePosition,
    Integer etaSeconds,
    String intent,
    Answer answer,
    String deadline,
    boolean upgrading) {

  public QuestionStatus(
      String workflowId,
      Stage stage,
      Integer queuePosition,
      Integer etaSeconds,
      String intent,
      Answer answer) {
    this(workflowId, stage, queuePosition, etaSeconds, intent, answer, null, false);
  }

  /** The same status with the queue deadline ({@code epochMillis} 0: none). */
  public QuestionStatus withDeadline(long epochMillis) {
    String at = epochMillis <= 0 ? null : java.time.Instant.ofEpochMilli(epochMillis).toString();
    return new QuestionStatus(
        workflowId, stage, queuePosition, etaSeconds, intent, answer, at, upgrading);
  }

  /**
   * Waiting for a model lane with {@code position} questions ahead: the position and the ETA as a
   * caller is told them (the last few ahead shown as 0, whole seconds rounded up), for the
   * workflow's own query and the API's status reads alike.
   */
  public static QuestionStatus waiting(
      String workflowId, long position, double etaSeconds, String intent) {
    return new QuestionStatus(
        workflowId,
        Stage.WAITING_IN_QUEUE,
        LaneSnapshot.shown(position),
        (int) Math.ceil(etaSeconds),
        intent,
        null);
  }
}
