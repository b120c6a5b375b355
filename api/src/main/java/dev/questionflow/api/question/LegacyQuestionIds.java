package dev.questionflow.api.question;

import dev.questionflow.workflows.SearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Finds the workflow of a question asked before owner tags grew to 64 bits, so that its resubmit
 * (same caller, user, session and message ID) is the same question and not a second one.
 *
 * <p>The old ID is derived from the new one ({@link WorkflowIds#legacyOf}); finding out whether it
 * exists costs one DescribeWorkflowExecution per accepted question. That call is made only while
 * old-format questions can exist: every question started since carries the search attribute {@code
 * QuestionIdFormat}, so the namespace holds old ones exactly when it has more questions than
 * questions with that attribute (two counts of Temporal's visibility, started by the first accept
 * and then once per {@code recheck}, in the background: until the first count is in, questions look
 * up). Once none are left (closed and past the namespace's retention: Temporal's duplicate check
 * ends there anyway) the lookups stop for good, since this code never starts an old-format ID. A
 * fresh namespace never looks up.
 *
 * <p>Why not always: on the dev server (2 shared cores) a describe of an absent ID took p50 2.1 ms
 * beside p50 3.6 ms for the start call itself (interleaved, 700 each), so looking up on every
 * accept would cost about half again the accept's Temporal time, for ever, to serve resubmits that
 * stop existing once the old questions are past retention.
 *
 * <p>{@code cs.api.legacy-id-lookup}: {@code auto} (the above), {@code on} (always, e.g. when
 * visibility cannot count) or {@code off}.
 */
@Component
class LegacyQuestionIds {

  private static final Logger log = LoggerFactory.getLogger(LegacyQuestionIds.class);

  static final String QUESTIONS = "WorkflowType = 'QuestionWorkflow'";

  enum Mode {
    AUTO,
    ON,
    OFF
  }

  private final WorkflowClient client;
  private final Mode mode;
  private final long recheckNanos;

  /** System.nanoTime() of the next count; Long.MAX_VALUE once none are left (auto). */
  private final AtomicLong nextCheckAt = new AtomicLong(System.nanoTime());

  private volatile boolean mayExist = true;

  LegacyQuestionIds(
      WorkflowClient client,
      @Value("${cs.api.legacy-id-lookup:auto}") String mode,
      @Value("${cs.api.legacy-id-recheck:10m}") Duration recheck) {
    this.client = client;
    try {
      this.mode = Mode.valueOf(mode.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cs.api.legacy-id-lookup (LEGACY_ID_LOOKUP) must be auto, on or off, is '" + mode + "'");
    }
    this.recheckNanos = recheck.toNanos();
  }

  /**
   * The old-format workflow ID of this question when a workflow with it exists (running or closed),
   * else null.
   */
  String existing(String workflowId) {
    if (!lookUp()) {
      return null;
    }
    String legacy = WorkflowIds.legacyOf(workflowId);
    try {
      // the raw service call: describe through a stub would log and wrap a NOT_FOUND, the common
      // case
      client
          .getWorkflowServiceStubs()
          .blockingStub()
          .describeWorkflowExecution(
              DescribeWorkflowExecutionRequest.newBuilder()
                  .setNamespace(client.getOptions().getNamespace())
                  .setExecution(WorkflowExecution.newBuilder().setWorkflowId(legacy))
                  .build());
      return legacy;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return null;
      }
      throw e; // Temporal unreachable: the start would fail too; the caller retries
    }
  }

  private boolean lookUp() {
    if (mode != Mode.AUTO) {
      return mode == Mode.ON;
    }
    long next = nextCheckAt.get();
    if (next != Long.MAX_VALUE
        && System.nanoTime() - next >= 0
        && nextCheckAt.compareAndSet(next, System.nanoTime() + recheckNanos)) {
      // off the accept path: until the count is in, the question looks up (the safe side)
      CompletableFuture.runAsync(this::recount);
    }
    return mayExist;
  }

  private void recount() {
    try {
      // marked first: a question started between the two counts can only make "all" larger
      long marked =
          client
              .countWorkflows(QUESTIONS + " AND " + SearchAttributes.ID_FORMAT.getName() + " = '2'")
              .getCount();
      long all = client.countWorkflows(QUESTIONS).getCount();
      if (all <= marked) {
        mayExist = false;
        nextCheckAt.set(Long.MAX_VALUE);
        log.info(
            "no question with an old-format (32-bit owner tag) workflow ID is left in Temporal: resubmits"
                + " are no longer looked up under their old ID");
      } else {
        mayExist = true;
        log.info(
            "{} question(s) with old-format workflow IDs are in Temporal: a new question first checks its old ID"
                + " (one DescribeWorkflowExecution per accepted question) until none are left",
            all - marked);
      }
    } catch (RuntimeException e) {
      mayExist = true; // cannot tell: keep a resubmit from becoming a second question
      log.warn(
          "could not count questions in Temporal's visibility ({}): old workflow IDs are looked up on every"
              + " accepted question; set LEGACY_ID_LOOKUP=off once none can be left",
          e.toString());
    }
  }
}
