package dev.questionflow.workflows.session;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Per-session order and memory, shared by all instances (Redis; in process memory without it).
 * Questions of one session are answered in order: a question joins its session's line and, when
 * another question of the session is ahead of it, waits for that one's {@code finishSessionTurn},
 * which signals the next in line ({@link
 * dev.questionflow.workflows.question.QuestionWorkflow#sessionTurnReady}).
 */
@ActivityInterface
public interface SessionActivities {

  /**
   * Puts the question at the end of its session's line (idempotent per workflow ID) and returns the
   * workflow ID of the question directly ahead of it, or null when it is first.
   */
  @ActivityMethod
  String joinSession(SessionJoin join);

  /**
   * Records the finished turn (question and answer) in the session history (the last 10 turns are
   * kept, until 30 minutes after the last message), leaves the line and signals the next question
   * of the session. Idempotent.
   */
  @ActivityMethod
  void finishSessionTurn(SessionTurn turn);
}
