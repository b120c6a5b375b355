package dev.questionflow.workflows.question;

import dev.questionflow.workflows.generation.GenerationActivities;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.lane.LaneActivities;
import dev.questionflow.workflows.lane.LaneEntry;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.lane.Priorities;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.Priority;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * The lane call of questions accepted before queue deadlines ({@link ModelLane#QUEUE_DEADLINES}):
 * kept so their histories replay. Such a question waited for its lane up to {@code
 * maxQueueWaitSeconds} on top of the chain budget, whatever its customer's patience.
 */
final class LaneCallsBeforeDeadlines {

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
   * EnterLane with a timer the SDK never cancels, then waited for a late EnterLane with another,
   * and showed a question that was first in line of a free lane as waiting. Now the budget timer is
   * started only if the call is still running once its place is known ({@link
   * LaneLine#callInLine}).
   */
  private static final int TIMERS_ONLY_WHEN_QUEUED = 2;

  /**
   * Version 1: a question with a lane holds what the Web UI shows of it (intent, stage) until its
   * call is still running once its place in line is known, instead of upserting it before the call
   * goes out.
   */
  static final String UPSERT_WHEN_CALL_WAITS = "upsert-when-call-waits";

  /**
   * At most this long for an EnterLane still running after its call finished (its schedule-to-close
   * is 10 s).
   */
  private static final Duration LANE_ENTRY_WAIT = Duration.ofSeconds(10);

  private final GenerationActivities generation;
  private final LaneActivities ledger;
  private final QuestionPolicy policy;
  private final ChainBudget budget;
  private final LaneLine line;
  private final Progress progress;

  LaneCallsBeforeDeadlines(
      GenerationActivities generation,
      LaneActivities ledger,
      QuestionPolicy policy,
      ChainBudget budget,
      LaneLine line,
      Progress progress) {
    this.generation = generation;
    this.ledger = ledger;
    this.policy = policy;
    this.budget = budget;
    this.line = line;
    this.progress = progress;
  }

  /** The model call, completed unless the budget (plus the queue allowance) ran out first. */
  Promise<GenerationResult> call(
      String model, GenerationRequest request, int priority, Duration left) {
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
    LaneActivities entries =
        lane == null
            ? null
            : Workflow.newActivityStub(
                LaneActivities.class,
                ActivityOptions.newBuilder().setPriority(lanePriority).build());
    if (lane != null && !entering) {
      line.joined(ModelLane.snapshotOrNone(() -> ledger.enterLane(lane)), lane);
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
      return line.callInLine(
          stub,
          request,
          entries,
          lane,
          () ->
              budget
                  .left()
                  .plus(QueueProjection.allowance(line.shown(), policy.maxQueueWaitSeconds())),
          true,
          null);
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
      line.joined(entered.isCompleted() ? ModelLane.snapshotOrNone(entered::get) : null, lane);
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
      // a free lane's call can finish before its EnterLane: let that finish rather than cancel it
      Workflow.await(LANE_ENTRY_WAIT, entryOrTimer[0]::isCompleted);
    }
    scope.cancel(); // stops the loser: the timer, or the abandoned model call
    if (timerScope != null) {
      timerScope.cancel();
    }
    return call[0];
  }
}
