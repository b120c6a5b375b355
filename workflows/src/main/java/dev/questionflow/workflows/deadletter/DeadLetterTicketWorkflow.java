package dev.questionflow.workflows.deadletter;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One per ticket the helpdesk did not take after the question workflow's retries: keeps
 * redelivering it with a long, growing backoff until the helpdesk takes it, durably (it survives
 * restarts of everything but the Temporal server's database) and visibly (Web UI: {@code
 * WorkflowType="DeadLetterTicket"}, or {@code Stage="DEAD_LETTER"}). An engineer who fixed the
 * helpdesk sends {@link #redrive()} to try again at once instead of waiting out the backoff.
 * Workflow ID: {@link #workflowIdFor(String)}, so a ticket has at most one.
 */
@WorkflowInterface
public interface DeadLetterTicketWorkflow {

  @WorkflowMethod(name = "DeadLetterTicket")
  DeadLetterStatus redeliver(DeadLetter deadLetter);

  /** Try the delivery again now. */
  @SignalMethod
  void redrive();

  @QueryMethod
  DeadLetterStatus status();

  static String workflowIdFor(String ticketId) {
    return "dead-letter-" + ticketId;
  }
}
