package dev.questionflow.api.question;

import dev.questionflow.activities.session.SessionActivitiesImpl;
import dev.questionflow.workflows.session.SessionJoin;
import dev.questionflow.workflows.session.SessionTurn;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session's line of questions as {@link QuestionService} keeps it while accepting: a question
 * joins on arrival, and leaves again when it was not accepted or was a resubmit of one already
 * finished. Apart from the service because it is its own talk with the session store (and
 * Temporal's describe), best effort throughout: accepting never fails for it.
 */
final class SessionLine {

  // the service's name: its log lines keep their logger
  private static final Logger log = LoggerFactory.getLogger(QuestionService.class);

  private final SessionActivitiesImpl sessions;
  private final WorkflowClient client;

  SessionLine(SessionActivitiesImpl sessions, WorkflowClient client) {
    this.sessions = sessions;
    this.client = client;
  }

  /**
   * The session's line is ordered by arrival here, at the API, before the workflow starts: two
   * messages sent 10 ms apart to two instances would otherwise join in the order their workflows
   * happen to run. The workflow's own JoinSession is idempotent and returns the predecessor
   * recorded now. If Redis is unreachable the workflow joins later itself (and its join is
   * bounded), so accepting never fails for it.
   */
  void join(String sessionId, String workflowId) {
    try {
      sessions.joinSession(new SessionJoin(sessionId, workflowId));
    } catch (RuntimeException e) {
      log.warn(
          "session line unavailable at accept, the workflow will join it itself: {}", e.toString());
    }
  }

  void leave(String sessionId, String workflowId) {
    try {
      sessions.finishSessionTurn(new SessionTurn(sessionId, workflowId, null, null, null));
    } catch (RuntimeException e) {
      log.warn(
          "could not take a question that was not accepted out of its session line: {}",
          e.toString());
    }
  }

  /**
   * A resubmit of a question that already finished, made after its session expired from the line,
   * has just joined the line again: take it out, or the session's next question would wait for it.
   * (A resubmit of a running question changed nothing: its join was a no-op.)
   */
  void leaveIfClosed(String sessionId, String workflowId) {
    try {
      WorkflowExecutionStatus status =
          client.newUntypedWorkflowStub(workflowId).describe().getStatus();
      if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        leave(sessionId, workflowId);
      }
    } catch (RuntimeException e) {
      log.warn("could not check a resubmitted question: {}", e.toString());
    }
  }
}
