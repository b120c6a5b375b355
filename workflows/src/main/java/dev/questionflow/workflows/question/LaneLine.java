package dev.questionflow.workflows.question;

import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.generation.GenerationActivities;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.lane.LaneActivities;
import dev.questionflow.workflows.lane.LaneEntry;
import dev.questionflow.workflows.lane.LaneSnapshot;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * A question's place in its model lane's line while its call waits: the projection callers are
 * shown, refreshed every {@code laneRefreshSeconds} from the lane's ledger with one local activity
 * (O(1) history events per interval), and the stage and details that go with it.
 */
final class LaneLine {

  private static final Logger log = Workflow.getLogger(LaneLine.class);

  private final LaneActivities ledger;
  private final Progress progress;
  private final Duration refresh;
  private LaneEntry entry;

  /** The projection shown to callers while waiting for the lane (null when not waiting). */
  private LaneSnapshot shown;

  /** The ledger's last snapshot as it came. */
  private LaneSnapshot last;

  /**
   * The call's queue deadline (0: none): no refresh is worth a timer after it, since the call
   * starts by then or gives up. Set only for questions with deadlines, which also leave the line
   * without an upsert of their own when their call is over (the answer's upsert carries it).
   */
  private long deadline;

  LaneLine(LaneActivities ledger, Progress progress, Duration refresh) {
    this.ledger = ledger;
    this.progress = progress;
    this.refresh = refresh;
  }

  LaneSnapshot shown() {
    return shown;
  }

  /** The next call waits in line until {@code epochMillis} at most (see {@link #deadline}). */
  void until(long epochMillis) {
    deadline = epochMillis;
  }

  /**
   * Where the ledger put the question (null: nowhere known, e.g. the ledger was down or the lane
   * was free).
   */
  void joined(LaneSnapshot snapshot, LaneEntry lane) {
    shown = snapshot != null && snapshot.waiting() ? QueueProjection.first(snapshot) : null;
    last = snapshot;
    entry = lane;
    if (shown != null) {
      describeWait();
      progress.startWaiting();
    }
  }

  /**
   * The lane call with its EnterLane beside it (both scheduled in one workflow task, so the
   * ledger's order is the server's); the timer ({@code timerFor}, asked once the question's place
   * is known) only while the call is still running then. The returned promise is completed unless
   * the timer fired first, in which case the call is cancelled, or {@code askedAgain} (null: none)
   * completed first, in which case the call goes on.
   */
  Promise<GenerationResult> callInLine(
      GenerationActivities stub,
      GenerationRequest request,
      LaneActivities entries,
      LaneEntry lane,
      Supplier<Duration> timerFor,
      boolean shown,
      Promise<?> askedAgain) {
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
    LaneSnapshot place =
        entered[0].isCompleted() ? ModelLane.snapshotOrNone(entered[0]::get) : null;
    joined(shown && QueueProjection.worthShowing(place) ? place : null, lane);
    if (!call[0].isCompleted()) {
      // the call takes a while: what the Web UI shows of the question catches up (a waiting
      // question's stage change did that already)
      if (shown) {
        progress.upsert();
      }
      if (timerFor == null) { // the call's own schedule-to-close bounds it
        await(call[0], askedAgain == null ? Workflow.newPromise() : askedAgain);
      } else {
        Duration waitAtMost = timerFor.get();
        Promise<?>[] timer = new Promise[1];
        CancellationScope timerScope =
            Workflow.newCancellationScope(() -> timer[0] = Workflow.newTimer(waitAtMost));
        timerScope.run();
        await(call[0], timer[0]);
        timerScope.cancel();
      }
    }
    // a call that finished first leaves its EnterLane to finish rather than be cancelled (its
    // completion would land while the workflow completes and cost a workflow task retry)
    Workflow.await(entered[0]::isCompleted);
    if (timerFor != null) {
      scope.cancel(); // the abandoned model call, when the timer fired
    }
    return call[0];
  }

  /** Waits for the model call (or the budget timer), refreshing the queue position while queued. */
  void await(Promise<?> call, Promise<?> timer) {
    while (!call.isCompleted() && !timer.isCompleted()) {
      if (shown == null) {
        Workflow.await(() -> call.isCompleted() || timer.isCompleted());
        break;
      }
      Duration untilRefresh = QueueProjection.untilNextRefresh(shown, refresh);
      if (deadline > 0 && Workflow.currentTimeMillis() + untilRefresh.toMillis() >= deadline) {
        // the call starts or gives up before the next refresh: the status query projects
        Workflow.await(() -> call.isCompleted() || timer.isCompleted());
        break;
      }
      if (Workflow.await(untilRefresh, () -> call.isCompleted() || timer.isCompleted())) {
        break;
      }
      try {
        LaneSnapshot fresh = ledger.laneSnapshot(entry);
        if (!fresh.waiting()) {
          leaveQueue(false);
        } else {
          shown = QueueProjection.next(last, shown, fresh);
          last = fresh;
          describeWait();
        }
      } catch (ActivityFailure e) {
        log.warn(
            "lane ledger unavailable, keeping the last queue position: {}",
            Problems.failureType(e));
      }
    }
    leaveQueue(call.isCompleted());
  }

  /**
   * "waiting for model lane model-primary, position 12, about 40 s": one line for a person in the
   * Web UI.
   */
  private void describeWait() {
    Progress.details(
        "waiting for model lane "
            + entry.lane()
            + ", position "
            + shown.position()
            + ", about "
            + (long) Math.ceil(shown.etaSeconds())
            + " s");
  }

  /**
   * Out of the line: {@code callOver} and with a deadline, the stage is held for the upsert that
   * shows the answer (one visibility write instead of two in the same workflow task).
   */
  private void leaveQueue(boolean callOver) {
    if (shown != null) {
      shown = null;
      Progress.details("asking the model (lane " + entry.lane() + ")");
      if (callOver && deadline > 0) {
        progress.set(Stage.PROCESSING);
        progress.update(SearchAttributes.STAGE.valueSet(Stage.PROCESSING.name()));
      } else {
        progress.moveTo(Stage.PROCESSING);
      }
    }
  }
}
