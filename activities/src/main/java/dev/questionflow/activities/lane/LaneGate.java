package dev.questionflow.activities.lane;

import dev.questionflow.activities.generation.ModelCallGate;
import dev.questionflow.workflows.lane.Priorities;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInfo;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model lanes' side of each model call, run right before the HTTP request and right after it
 * (in the activity's thread): the call waits for its slot in the lane's {@link LaneThrottle}, then
 * its question leaves the lane's waiting line (until then it still counts in the positions of the
 * questions behind it); when the call ends its outcome and duration (without the wait) feed the
 * lane's statistics for ETAs and the adaptive rate. Calls take the throttle's slots one at a time,
 * the most urgent first ({@link UrgentFirst}). A call that does not run on a configured lane's task
 * queue passes untouched. The ledger never fails a model call: its errors are logged and ignored.
 */
public final class LaneGate implements ModelCallGate, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LaneGate.class);

  private final LaneLedger ledger;
  private final LaneThrottle throttle;
  private final Map<String, Double> configuredRates;

  /** Each lane's turns in front of its throttle in this instance: the most urgent call first. */
  private final Map<String, UrgentFirst> turns = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Leaving the waiting line is not waited for: nothing may come between the throttle and the
   * request.
   */
  private final ExecutorService ledgerWrites =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "lane-ledger-writes");
            t.setDaemon(true);
            return t;
          });

  /**
   * @param configuredRates each lane's configured rate by task queue, until the adaptive controller
   *     stores another
   */
  public LaneGate(LaneLedger ledger, LaneThrottle throttle, Map<String, Double> configuredRates) {
    this.ledger = ledger;
    this.throttle = throttle;
    this.configuredRates = Map.copyOf(configuredRates);
  }

  @Override
  public void beforeCall() throws InterruptedException {
    ActivityInfo info = laneCall();
    if (info == null) {
      return;
    }
    String lane = info.getActivityTaskQueue(); // the ledger's key for the lane
    double rate = configuredRates.get(lane);
    try {
      rate = ledger.rate(lane, rate);
    } catch (RuntimeException e) {
      log.warn("lane ledger unavailable, throttling at the configured rate: {}", e.toString());
    }
    UrgentFirst turns = this.turns.computeIfAbsent(lane, l -> new UrgentFirst());
    turns.enter(priorityKey(info));
    try {
      throttle.acquire(lane, rate);
    } finally {
      turns.leave();
    }
    if (log.isDebugEnabled()) {
      log.debug("lane {}: call released at {} (epoch ms)", lane, System.currentTimeMillis());
    }
    String workflowId = info.getWorkflowId();
    ledgerWrites.execute(() -> quietly(() -> ledger.started(lane, workflowId)));
  }

  @Override
  public void afterCall(boolean healthy, long millis) {
    ActivityInfo info = laneCall();
    if (info != null) {
      quietly(() -> ledger.finished(info.getActivityTaskQueue(), healthy, millis));
    }
  }

  /**
   * The call's Temporal priority key; 0 (none set) is the server's default, a default question's.
   */
  private static int priorityKey(ActivityInfo info) {
    int key = info.getPriority() == null ? 0 : info.getPriority().getPriorityKey();
    return key == 0 ? Priorities.toTemporalKey(Priorities.DEFAULT) : key;
  }

  /** The running activity when it runs on a configured lane's task queue; null otherwise. */
  private ActivityInfo laneCall() {
    ActivityInfo info;
    try {
      info = Activity.getExecutionContext().getInfo();
    } catch (IllegalStateException e) {
      return null; // not inside an activity (a direct call)
    }
    return configuredRates.containsKey(info.getActivityTaskQueue()) ? info : null;
  }

  private static void quietly(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("lane ledger unavailable: {}", e.toString());
    }
  }

  @Override
  public void close() {
    ledgerWrites.shutdown();
  }
}
