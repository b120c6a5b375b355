package dev.questionflow.workflows.question;

import dev.questionflow.workflows.generation.GenerationActivities;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.generation.ModelFailures;
import dev.questionflow.workflows.lane.LaneActivities;
import dev.questionflow.workflows.lane.LaneEntry;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.lane.Priorities;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.Priority;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * A model's answer through its lane: the call goes to the lane's task queue (whose server-side rate
 * limit is the model's quota) with the question's priority, joins the lane's ledger for a queue
 * position, and races what is left of the chain budget (a durable timer); {@link LaneLine} keeps
 * its place in the line meanwhile.
 */
final class ModelLane {

  private static final Logger log = Workflow.getLogger(ModelLane.class);

  /**
   * The stage of an answer the output checks rejected ({@link ModelFailures#OUTPUT_CHECKS}): the
   * model answered, but what it wrote must not reach the customer.
   */
  static final String OUTPUT_CHECK = "output check";

  private static final Map<String, String> OUTPUT_CHECK_DETAILS =
      Map.of(
          ModelFailures.PROMPT_LEAK, "prompt leak",
          ModelFailures.FOREIGN_LINK, "foreign link");

  /**
   * Version 1: the question joins the lane's ledger through a regular EnterLane activity scheduled
   * in the same workflow task as its lane call, so both tasks are created together and the ledger's
   * order is the order in which the server queues the calls. Before (default version), a local
   * activity joined the ledger before the call was scheduled; under load the workflow task that
   * scheduled the call could complete seconds later, so the ledger's order and the server's
   * differed by dozens of places.
   */
  static final String LANE_ENTRY_WITH_CALL = "lane-entry-with-call";

  /**
   * Version 2 of {@link #LANE_ENTRY_WITH_CALL}: no timers while the lane is free. Version 1 raced
   * EnterLane with a timer the SDK never cancels (one more timer task per question, firing after
   * the question is done), then waited for a late EnterLane with another, and showed a question
   * that was first in line of a free lane as waiting (two more search-attribute upserts). Now the
   * budget timer is started only if the call is still running once its place is known, and a
   * question is shown waiting only when it has others ahead ({@link QueueProjection#worthShowing}).
   * Waiting for EnterLane needs no timer of its own: its schedule-to-close (10 s) ends it either
   * way.
   */
  private static final int TIMERS_ONLY_WHEN_QUEUED = 2;

  /**
   * Version 1: a question with a lane holds what the Web UI shows of it (intent, stage) until its
   * call is still running once its place in line is known, instead of upserting it before the call
   * goes out: a call on a free lane finishes within the same few milliseconds, and the question's
   * last upsert then carries everything (one search-attribute upsert, one visibility write fewer).
   */
  static final String UPSERT_WHEN_CALL_WAITS = "upsert-when-call-waits";

  /**
   * At most this long for an EnterLane still running after its call finished (its schedule-to-close
   * is 10 s).
   */
  private static final Duration LANE_ENTRY_WAIT = Duration.ofSeconds(10);

  private final GenerationActivities generation =
      Workflow.newActivityStub(GenerationActivities.class);
  private final LaneActivities ledger = Workflow.newLocalActivityStub(LaneActivities.class);

  private final QuestionPolicy policy;
  private final ChainBudget budget;
  private final LaneLine line;
  private final Progress progress;

  ModelLane(QuestionPolicy policy, ChainBudget budget, Progress progress) {
    this.policy = policy;
    this.budget = budget;
    this.progress = progress;
    this.line = new LaneLine(ledger, progress, Duration.ofSeconds(policy.laneRefreshSeconds()));
  }

  /** The queue projection while waiting for the lane, else null. */
  LaneSnapshot waiting() {
    return line.shown();
  }

  /**
   * The model's answer, or null when it failed, is not configured or the budget ran out (added to
   * problems).
   */
  GenerationResult generate(
      String model, GenerationRequest request, int priority, Problems problems) {
    String stage = model + " model";
    Duration left = budget.left();
    if (left.isZero()) {
      problems.add(stage, "skipped, chain budget used up");
      return null;
    }
    String laneQueue = policy.lanes().get(model);
    boolean upsertWhenCallWaits =
        laneQueue != null
            && Workflow.getVersion(UPSERT_WHEN_CALL_WAITS, Workflow.DEFAULT_VERSION, 1) == 1;
    if (!upsertWhenCallWaits) {
      // the model call goes out: what the Web UI shows of the question catches up first
      progress.upsert();
    }
    // the ledger is keyed by the lane's task queue: deployments sharing a Redis keep separate lines
    LaneEntry lane =
        laneQueue == null
            ? null
            : new LaneEntry(
                laneQueue, Workflow.getInfo().getWorkflowId(), Priorities.toTemporalKey(priority));
    int laneVersion =
        lane == null
            ? Workflow.DEFAULT_VERSION
            : Workflow.getVersion(
                LANE_ENTRY_WITH_CALL, Workflow.DEFAULT_VERSION, TIMERS_ONLY_WHEN_QUEUED);
    boolean entering = laneVersion >= 1;
    Priority lanePriority =
        lane == null ? null : Priority.newBuilder().setPriorityKey(lane.priorityKey()).build();
    GenerationActivities stub =
        lane == null
            ? generation
            : Workflow.newActivityStub(
                GenerationActivities.class,
                ActivityOptions.newBuilder()
                    .setTaskQueue(laneQueue)
                    .setPriority(lanePriority)
                    .setSummary(model + " model on lane " + laneQueue + ", priority " + priority)
                    .build());
    // EnterLane as a regular activity, scheduled together with the lane call (see
    // LANE_ENTRY_WITH_CALL), at the question's priority as it is now (a complaint's is raised)
    LaneActivities entries =
        lane == null
            ? null
            : Workflow.newActivityStub(
                LaneActivities.class,
                ActivityOptions.newBuilder().setPriority(lanePriority).build());
    if (lane != null && !entering) {
      line.joined(
          snapshotOrNone(() -> ledger.enterLane(lane)), lane); // before LANE_ENTRY_WITH_CALL
      left = left.plus(QueueProjection.allowance(line.shown(), policy.maxQueueWaitSeconds()));
    }
    Duration raceFor = left;
    if (line.shown() == null) {
      Progress.details(
          "asking the "
              + model
              + " model"
              + (laneQueue == null ? "" : " (lane " + laneQueue + ")"));
    }
    if (laneVersion == TIMERS_ONLY_WHEN_QUEUED) {
      return outcome(model, callInLine(stub, request, entries, lane), problems);
    }
    Promise<GenerationResult>[] call = new Promise[1];
    Promise<?>[] entryOrTimer = new Promise[1];
    CancellationScope scope =
        Workflow.newCancellationScope(
            () -> {
              call[0] = Async.function(stub::generateAnswer, request);
              entryOrTimer[0] =
                  entering ? Async.function(entries::enterLane, lane) : Workflow.newTimer(raceFor);
            });
    scope.run();
    Promise<?> timer = entryOrTimer[0];
    CancellationScope timerScope = null;
    if (entering) {
      @SuppressWarnings("unchecked")
      Promise<LaneSnapshot> entered = (Promise<LaneSnapshot>) entryOrTimer[0];
      // the snapshot comes back within milliseconds; a call that finishes first had a free lane
      Workflow.await(raceFor, () -> entered.isCompleted() || call[0].isCompleted());
      line.joined(entered.isCompleted() ? snapshotOrNone(entered::get) : null, lane);
      Duration timerFor =
          budget.left().plus(QueueProjection.allowance(line.shown(), policy.maxQueueWaitSeconds()));
      Promise<?>[] budgetTimer = new Promise[1];
      timerScope =
          Workflow.newCancellationScope(() -> budgetTimer[0] = Workflow.newTimer(timerFor));
      timerScope.run();
      timer = budgetTimer[0];
    }
    line.await(call[0], timer);
    if (entering) {
      // a free lane's call can finish before its EnterLane: let that finish rather than cancel it,
      // or its
      // completion would land while this workflow completes and cost a workflow task retry
      // (UnhandledCommand)
      Workflow.await(LANE_ENTRY_WAIT, entryOrTimer[0]::isCompleted);
    }
    scope.cancel(); // stops the loser: the timer, or the abandoned model call
    if (timerScope != null) {
      timerScope.cancel();
    }
    return outcome(model, call[0], problems);
  }

  /**
   * The lane call with its EnterLane beside it; the budget timer (plus the queue allowance) only
   * while the call is still running once the question's place in line is known. The returned
   * promise is completed unless the budget ran out.
   */
  private Promise<GenerationResult> callInLine(
      GenerationActivities stub,
      GenerationRequest request,
      LaneActivities entries,
      LaneEntry lane) {
    Promise<GenerationResult>[] call = new Promise[1];
    Promise<LaneSnapshot>[] entered = new Promise[1];
    CancellationScope scope =
        Workflow.newCancellationScope(
            () -> {
              call[0] = Async.function(stub::generateAnswer, request);
              entered[0] = Async.function(entries::enterLane, lane);
            });
    scope.run();
    Workflow.await(() -> entered[0].isCompleted() || call[0].isCompleted());
    LaneSnapshot place = entered[0].isCompleted() ? snapshotOrNone(entered[0]::get) : null;
    line.joined(QueueProjection.worthShowing(place) ? place : null, lane);
    if (!call[0].isCompleted()) {
      // the call takes a while: what the Web UI shows of the question catches up (a waiting
      // question's stage change did that already)
      progress.upsert();
      Duration timerFor =
          budget.left().plus(QueueProjection.allowance(line.shown(), policy.maxQueueWaitSeconds()));
      Promise<?>[] timer = new Promise[1];
      CancellationScope timerScope =
          Workflow.newCancellationScope(() -> timer[0] = Workflow.newTimer(timerFor));
      timerScope.run();
      line.await(call[0], timer[0]);
      timerScope.cancel();
    }
    // a call that finished first leaves its EnterLane to finish rather than be cancelled (its
    // completion would land while the workflow completes and cost a workflow task retry)
    Workflow.await(entered[0]::isCompleted);
    scope.cancel(); // the abandoned model call, when the budget ran out
    return call[0];
  }

  private GenerationResult outcome(
      String model, Promise<GenerationResult> call, Problems problems) {
    String stage = model + " model";
    if (!call.isCompleted()) {
      problems.add(stage, "over the " + budget.seconds() + " s chain budget");
      Workflow.getMetricsScope()
          .tagged(Map.of("model", model))
          .counter("cs_budget_exceeded_total")
          .inc(1);
      log.warn(
          "{} model did not answer within the chain budget; answering from lower levels", model);
      return null;
    }
    try {
      GenerationResult result = call.get();
      if (!result.answered()) {
        problems.add(stage, GenerationResult.NOT_CONFIGURED_REASON);
        return null;
      }
      return result;
    } catch (ActivityFailure e) {
      String type = Problems.failureType(e);
      String rejected = OUTPUT_CHECK_DETAILS.get(type);
      if (rejected != null) {
        problems.add(OUTPUT_CHECK, rejected);
        log.warn("{} model's answer rejected by the output checks: {}", model, rejected);
        return null;
      }
      problems.add(stage, type);
      log.warn("{} model failed: {}", model, type);
      return null;
    }
  }

  /**
   * The ledger's answer, or none: a ledger failure only costs the queue position, never the answer.
   */
  static LaneSnapshot snapshotOrNone(Supplier<LaneSnapshot> ask) {
    try {
      return ask.get();
    } catch (ActivityFailure e) {
      log.warn("lane ledger unavailable, no queue position: {}", Problems.failureType(e));
      return null;
    }
  }
}
