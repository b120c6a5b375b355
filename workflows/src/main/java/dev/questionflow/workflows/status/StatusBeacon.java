package dev.questionflow.workflows.status;

import dev.questionflow.workflows.question.QuestionStatus;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowLocal;
import java.util.function.Supplier;

/**
 * Where the worker's status interceptor finds a question's status (workflow code cannot do I/O, so
 * it cannot publish): the workflow names its status query once, in a {@link WorkflowLocal}, which
 * adds no command and no history event (old histories replay unchanged, as with {@code
 * QuestionRecords}). The interceptor reads it after each search-attribute or memo upsert and when
 * the workflow returns, the moments a change becomes visible, and publishes what changed.
 */
public final class StatusBeacon {

  private static final WorkflowLocal<StatusBeacon> CURRENT =
      WorkflowLocal.withCachedInitial(StatusBeacon::new);

  private Supplier<QuestionStatus> status;
  private QuestionStatus published;
  private long version;

  private StatusBeacon() {}

  /** This workflow's beacon (call from workflow code or its interceptors only). */
  public static StatusBeacon current() {
    return CURRENT.get();
  }

  /** The workflow's status is {@code status} from now on (its status query). */
  public static void follow(Supplier<QuestionStatus> status) {
    current().status = status;
  }

  /** The status now, or null when the workflow named none (not a question's workflow). */
  public QuestionStatus status() {
    return status == null ? null : status.get();
  }

  /**
   * Whether {@code next} differs from the status last taken by {@link #take}: an upsert a caller
   * cannot see (priority, customer) publishes nothing.
   */
  public boolean changed(QuestionStatus next) {
    return next != null && !next.equals(published);
  }

  /**
   * Records {@code next} as published and returns its version: larger than every earlier one of
   * this question, across continue-as-new too. A version is the workflow clock in microseconds'
   * place (ms x 1,000) plus a count within the millisecond; a run that continues an earlier one (a
   * hand-over) counts from 500, so even a first task in the same millisecond as the earlier run's
   * last (whose clock it never precedes) publishes above it, as long as a run publishes fewer than
   * 500 changes in one millisecond (a question publishes a handful in all). Taken on replay as
   * well, so a worker that replays a question continues where the first left off.
   */
  public long take(QuestionStatus next) {
    published = next;
    long floor =
        Workflow.currentTimeMillis() * 1000
            + (Workflow.getInfo().getContinuedExecutionRunId().isPresent() ? 500 : 0);
    version = Math.max(version + 1, floor);
    return version;
  }
}
