package dev.questionflow.workflows.question;

import dev.questionflow.workflows.lane.LaneSnapshot;

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
    Answer answer) {

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
