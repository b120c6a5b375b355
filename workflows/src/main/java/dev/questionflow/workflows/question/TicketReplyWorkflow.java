package dev.questionflow.workflows.question;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * A handed-over question's wait for a person (up to the reply window, days), apart from the
 * question workflow, which continues as this one under the same workflow ID: the question is pinned
 * to its build under Worker Deployment versioning, this wait runs on its own task queue that is
 * never versioned, so no build has to run for a week for it. Its signals and query have the
 * question's names, so callers need not know which run they reach.
 */
@WorkflowInterface
public interface TicketReplyWorkflow {

  /** Its task queue: the question's, with this suffix. */
  String TASK_QUEUE_SUFFIX = "-tickets";

  @WorkflowMethod
  Answer awaitReply(TicketWait wait);

  /** As {@link QuestionWorkflow#status}: the hand-over answer until a person replies. */
  @QueryMethod
  QuestionStatus status(Long asOfEpochMillis);

  /** A person answered the ticket. */
  @SignalMethod
  void staffReply(StaffReply reply);

  /** The customer asked again: the hand-over answer is already theirs; nothing to do. */
  @SignalMethod
  void askedAgain();

  /** A session's earlier question finished: this one no longer waits for it. */
  @SignalMethod
  void sessionTurnReady(String finishedWorkflowId);
}
