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

  ChainBudget(long seconds) {
    this.seconds = seconds;
  }

  long seconds() {
    return seconds;
  }

  void restart() {
    startedAt = Workflow.currentTimeMillis();
  }

  Duration left() {
    long deadline = startedAt + seconds * 1000;
    return Duration.ofMillis(Math.max(0, deadline - Workflow.currentTimeMillis()));
  }

  boolean usedUp() {
    return left().isZero();
  }
}
