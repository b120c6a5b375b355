package dev.questionflow.workflows.question;

import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * The time the ladder has from the start of processing to an answer (SPEC: about 30 s). Waiting for
 * the session's earlier question is not processing: the budget starts again after that wait.
 * Waiting behind others for a model lane is allowed on top of it (see {@link
 * QueueProjection#allowance}).
 */
final class ChainBudget {

  private final long seconds;
  private long startedAt = Workflow.currentTimeMillis();

  /**
   * When the customer began waiting for this answer: the ask, or the end of the wait for the
   * session's earlier question (the caller shows that one's answer first).
   */
  private long waitingSince = Workflow.getInfo().getRunStartedTimestampMillis();

  ChainBudget(long seconds) {
    this.seconds = seconds;
  }

  long seconds() {
    return seconds;
  }

  /**
   * Version 1: the chain budget starts again after waiting for the session's earlier question
   * (waiting is not processing). Asked only by questions that waited, so other histories carry no
   * marker.
   */
  static final String BUDGET_AFTER_SESSION_WAIT = "budget-after-session-wait";

  /** The question waited for its session's earlier one: the budget starts now (since version 1). */
  void restartAfterSessionWait() {
    waitingSince = Workflow.currentTimeMillis();
    if (Workflow.getVersion(BUDGET_AFTER_SESSION_WAIT, Workflow.DEFAULT_VERSION, 1) == 1) {
      startedAt = Workflow.currentTimeMillis();
    }
  }

  long waitingSince() {
    return waitingSince;
  }

  Duration left() {
    long deadline = startedAt + seconds * 1000;
    return Duration.ofMillis(Math.max(0, deadline - Workflow.currentTimeMillis()));
  }

  boolean usedUp() {
    return left().isZero();
  }
}
