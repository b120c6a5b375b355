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
 * the most urgent first ({@link UrgentFirst}), and a place among the lane's calls in flight (shared
 * by all instances: {@link LaneLedger#tryStartCall}, whose limit follows the model's latency up to
 * the provider's concurrency cap). A call that cannot go out by its question's queue deadline is
 * not made ({@link DeadlinePassed}): it leaves the line, and its customer has had the prepared
 * answer. While it waits it heartbeats, so that the workflow's cancellation reaches it. A call that
 * does not run on a configured lane's task queue passes untouched. The ledger never fails a model
 * call: its errors are logged and ignored (with Redis down, calls in flight are counted per
 * instance).
 */
public final class LaneGate implements ModelCallGate, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LaneGate.class);

  /** The calls whose mean duration is the latency of the in-flight limit. */
  private static final java.time.Duration LATENCY_WINDOW = java.time.Duration.ofSeconds(60);

  /** How often a call waiting for a place in flight asks again. */
  private static final long IN_FLIGHT_POLL_MILLIS = 25;

  /** A call without a deadline (a question from before deadlines) waits at most this long. */
  private static final long NO_DEADLINE_WAIT_MILLIS = 60_000;

  private final LaneLedger ledger;
  private final LaneThrottle throttle;
  private final Map<String, Double> configuredRates;
  private final Map<String, Integer> caps;
  private final long leaseMillis;

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
  /** Lanes without a cap of calls in flight: only their rate limits them. */
  public LaneGate(LaneLedger ledger, LaneThrottle throttle, Map<String, Double> configuredRates) {
    this(ledger, throttle, configuredRates, Map.of(), 0);
  }

  /**
   * @param caps each lane's cap of calls in flight (the provider's concurrency limit) by task queue
   * @param leaseMillis a place in flight not given back (an instance died mid-call) is free again
   *     after this: above the activity's start-to-close timeout
   */
  public LaneGate(
      LaneLedger ledger,
      LaneThrottle throttle,
      Map<String, Double> configuredRates,
      Map<String, Integer> caps,
      long leaseMillis) {
    this.ledger = ledger;
    this.throttle = throttle;
    this.configuredRates = Map.copyOf(configuredRates);
    this.caps = Map.copyOf(caps);
    this.leaseMillis = leaseMillis;
  }

  @Override
  public void beforeCall(long deadlineEpochMillis) throws InterruptedException {
    beforeCall(deadlineEpochMillis, 0);
  }

  @Override
  public void beforeCall(long deadlineEpochMillis, long lastStartEpochMillis)
      throws InterruptedException {
    ActivityInfo info = laneCall();
    if (info == null) {
      return;
    }
    String lane = info.getActivityTaskQueue(); // the ledger's key for the lane
    long questionDeadline =
        deadlineEpochMillis > 0
            ? deadlineEpochMillis
            : System.currentTimeMillis() + NO_DEADLINE_WAIT_MILLIS;
    boolean attemptFirst = lastStartEpochMillis > 0 && lastStartEpochMillis < questionDeadline;
    long deadline = attemptFirst ? lastStartEpochMillis : questionDeadline;
    double rate = configuredRates.get(lane);
    try {
      rate = ledger.rate(lane, rate);
    } catch (RuntimeException e) {
      log.warn("lane ledger unavailable, throttling at the configured rate: {}", e.toString());
    }
    UrgentFirst turns = this.turns.computeIfAbsent(lane, l -> new UrgentFirst());
    if (!turns.enter(priorityKey(info), deadline, LaneGate::heartbeat)) {
      throw late(lane, info, "waiting for its turn", attemptFirst);
    }
    boolean inFlight = false;
    try {
      inFlight = placeInFlight(lane, callId(info), rate, deadline);
      if (!inFlight) {
        throw late(lane, info, "waiting for a place among the calls in flight", attemptFirst);
      }
      throttle.acquire(lane, rate);
    } catch (InterruptedException | RuntimeException e) {
      if (inFlight) {
        quietly(() -> ledger.endCall(lane, callId(info)));
      }
      throw e;
    } finally {
      turns.leave();
    }
    if (deadlineEpochMillis > 0 && System.currentTimeMillis() > deadlineEpochMillis) {
      // the CoDel rule, checked last before the request: its customer has had the prepared answer
      quietly(() -> ledger.endCall(lane, callId(info)));
      throw notInTime(lane, info, "waiting for the throttle");
    }
    if (lastStartEpochMillis > 0 && System.currentTimeMillis() > lastStartEpochMillis) {
      quietly(() -> ledger.endCall(lane, callId(info)));
      throw late(lane, info, "waiting for the throttle", true);
    }
    if (log.isDebugEnabled()) {
      log.debug("lane {}: call released at {} (epoch ms)", lane, System.currentTimeMillis());
    }
    String member = member(info);
    ledgerWrites.execute(() -> quietly(() -> ledger.started(lane, member)));
  }

  /** The call's question (or its upgrade) in the lane's ledger. */
  private static String member(ActivityInfo info) {
    return Priorities.ledgerMember(info.getWorkflowId(), priorityKey(info));
  }

  /**
   * A place among the lane's calls in flight by the deadline (true), asked every {@value
   * #IN_FLIGHT_POLL_MILLIS} ms; a lane without a cap always has one.
   */
  private boolean placeInFlight(String lane, String callId, double rate, long deadline)
      throws InterruptedException {
    Integer cap = caps.get(lane);
    if (cap == null) {
      return true;
    }
    long mean = 0;
    try {
      mean = Math.round(ledger.stats(lane, LATENCY_WINDOW).meanLatencyMillis());
    } catch (RuntimeException e) {
      log.warn("lane ledger unavailable, no latency for the in-flight limit: {}", e.toString());
    }
    long nextHeartbeat = System.currentTimeMillis() + UrgentFirst.CHECK_MILLIS;
    while (true) {
      try {
        if (ledger.tryStartCall(lane, callId, cap, rate, mean, leaseMillis)) {
          return true;
        }
      } catch (RuntimeException e) {
        log.warn("lane ledger unavailable, calling without a place in flight: {}", e.toString());
        return true;
      }
      long now = System.currentTimeMillis();
      if (now >= deadline) {
        return false;
      }
      if (now >= nextHeartbeat) {
        heartbeat();
        nextHeartbeat = now + UrgentFirst.CHECK_MILLIS;
      }
      Thread.sleep(Math.min(IN_FLIGHT_POLL_MILLIS, deadline - now));
    }
  }

  /**
   * Past the question's deadline: it leaves the line. Past its attempt's last start only: it keeps
   * its place, and its next attempt waits again.
   */
  private RuntimeException late(
      String lane, ActivityInfo info, String doing, boolean attemptEnding) {
    return attemptEnding
        ? new AttemptEnding(
            "lane " + lane + ": this attempt would end before a call made now, " + doing)
        : notInTime(lane, info, doing);
  }

  private DeadlinePassed notInTime(String lane, ActivityInfo info, String doing) {
    String member = member(info);
    quietly(() -> ledger.leave(lane, member));
    return new DeadlinePassed(
        "lane " + lane + ": the question's queue deadline passed " + doing + ", not calling");
  }

  /** Tells Temporal the call is alive; throws when the workflow cancelled it. */
  private static void heartbeat() {
    Activity.getExecutionContext().heartbeat(null);
  }

  /** The call's place among the calls in flight: one per attempt of the activity. */
  private static String callId(ActivityInfo info) {
    return info.getWorkflowId() + "/" + info.getActivityId() + "#" + info.getAttempt();
  }

  @Override
  public void afterCall(boolean healthy, long millis) {
    ActivityInfo info = laneCall();
    if (info != null) {
      String lane = info.getActivityTaskQueue();
      if (caps.containsKey(lane)) {
        quietly(() -> ledger.endCall(lane, callId(info)));
      }
      quietly(() -> ledger.finished(lane, healthy, millis));
    }
  }

  @Override
  public void notCalled() {
    ActivityInfo info = laneCall();
    if (info != null) {
      String member = member(info);
      quietly(() -> ledger.leave(info.getActivityTaskQueue(), member));
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
