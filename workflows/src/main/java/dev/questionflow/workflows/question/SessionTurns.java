package dev.questionflow.workflows.question;

import dev.questionflow.workflows.session.SessionActivities;
import dev.questionflow.workflows.session.SessionJoin;
import dev.questionflow.workflows.session.SessionTurn;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Questions of one session are answered in order: a question joins its session's line and, if
 * another question is ahead, waits (bounded) for that one's {@code sessionTurnReady} signal, so it
 * sees that one's answer in its context; when answered, it records its turn, which signals the
 * question behind it.
 */
final class SessionTurns {

  private static final Logger log = Workflow.getLogger(SessionTurns.class);
  private static final long WAIT_SLACK_SECONDS = 30;

  private final SessionActivities sessions = Workflow.newLocalActivityStub(SessionActivities.class);

  /**
   * Questions of the session that signalled they finished (a set: a signal may beat the join's
   * result).
   */
  private final Set<String> finished = new HashSet<>();

  private String sessionKey;
  private String questionText;
  private boolean recorded;

  /**
   * Joins the line of the session (caller, user and session: {@code SessionKeys}) and waits for the
   * question ahead.
   *
   * @return true when this question waited for an earlier one
   */
  boolean awaitTurn(String sessionKey, String questionText, QuestionPolicy policy) {
    this.sessionKey = sessionKey;
    this.questionText = questionText;
    String workflowId = Workflow.getInfo().getWorkflowId();
    String ahead;
    try {
      ahead = sessions.joinSession(new SessionJoin(sessionKey, workflowId));
    } catch (ActivityFailure e) {
      log.warn(
          "session line unavailable, answering without waiting for earlier questions: {}",
          Problems.failureType(e));
      return false;
    }
    if (ahead == null || ahead.equals(workflowId)) {
      return false;
    }
    Duration bound =
        Duration.ofSeconds(
            policy.chainBudgetSeconds() + policy.maxQueueWaitSeconds() + WAIT_SLACK_SECONDS);
    Progress.details(
        "waiting for the earlier question "
            + ahead
            + " of this session (at most "
            + bound.getSeconds()
            + " s)");
    if (!Workflow.await(bound, () -> finished.contains(ahead))) {
      log.warn("question {} of the session did not finish within {}; going ahead", ahead, bound);
    }
    return true;
  }

  /** The turns of a question whose turn an earlier run recorded: none is recorded again. */
  static SessionTurns recordedEarlier() {
    SessionTurns turns = new SessionTurns();
    turns.recorded = true;
    return turns;
  }

  /** Records the turn (once: a ticketed question's later human answer is not a second turn). */
  void record(Answer result) {
    if (recorded) {
      return;
    }
    recorded = true;
    String text = result.level() == AnswerLevel.TICKET ? null : result.text();
    try {
      sessions.finishSessionTurn(
          new SessionTurn(
              sessionKey,
              Workflow.getInfo().getWorkflowId(),
              questionText,
              text,
              result.level().name()));
    } catch (ActivityFailure e) {
      log.warn("could not record the session turn: {}", Problems.failureType(e));
    }
  }

  /** The signal: the session's question {@code workflowId} has finished. */
  void finished(String workflowId) {
    if (workflowId != null) {
      finished.add(workflowId);
    }
  }
}
