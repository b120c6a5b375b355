package dev.questionflow.activities.lane;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adaptive rate of each model lane (SPEC "adaptive flow control"). Over a sliding {@code window} of
 * the lane's calls (shared stats, so all instances' calls count), below {@code minSuccessRate}
 * success or above {@code maxMeanLatency} mean latency the lane's rate is halved (not below {@code
 * minRate}); while healthy it rises by {@code stepUp} x the configured rate per {@code interval} up
 * to the configured rate. The new rate goes to the Temporal server as the task queue's rate limit
 * ({@link RateApplier}), so it holds for every worker of every instance at once; one instance per
 * lane decides (a lease in the ledger).
 *
 * <p>The window is checked every {@link #CHECK_EVERY} (at most every interval), not once per
 * interval: a check once per interval could fall just after the model started failing, see too few
 * failures in a window still full of healthy calls and leave the halving to the next interval.
 * Checking often and halving at once means the rate is halved within one interval of the failures
 * starting. After a halving the next one waits a full window (the window must first show how the
 * model does at the lower rate), and raises are at most one per interval. For two windows after
 * this instance first sees calls on the lane nothing is judged: the first window's calls are cold
 * starts (connection set-up, JIT) and no evidence about the model, so judging begins once a whole
 * window of calls made after them is in. (A leader that takes over from one that died has seen the
 * calls, and judges at once.)
 *
 * <p>Hand-written because it is control logic over Temporal's server-side limit, not a client-side
 * limiter that a library (Resilience4j, Bucket4j) would provide.
 */
public final class LaneRateController implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LaneRateController.class);
  static final Duration CHECK_EVERY = Duration.ofSeconds(1);

  /**
   * A lane: its name (the model), the task queue its calls run on, its configured rate (calls/s).
   */
  public record Lane(String name, String taskQueue, double configuredRate) {}

  /**
   * @param slowAloneHalves whether a mean latency above {@code maxMeanLatency} halves the rate even
   *     when every call succeeds (the SPEC's rule). Off by default since issue 27: a model that is
   *     merely slow still answers within the chain budget, and halving its rate only sent customers
   *     to the FAQ while the quota went unused; the calls in flight (quota x latency, capped at the
   *     provider's concurrency limit) are what protect a provider that slows down. A slow model
   *     that also fails (timeouts, errors) is halved as before.
   */
  public record Settings(
      Duration interval,
      Duration window,
      double minSuccessRate,
      Duration maxMeanLatency,
      double stepUp,
      double minRate,
      int minCalls,
      boolean slowAloneHalves) {

    public Settings(
        Duration interval,
        Duration window,
        double minSuccessRate,
        Duration maxMeanLatency,
        double stepUp,
        double minRate,
        int minCalls) {
      this(interval, window, minSuccessRate, maxMeanLatency, stepUp, minRate, minCalls, true);
    }

    /** The SPEC's numbers: every minute, 95 % success, 5 s mean latency, +10 % per step. */
    public static final Settings SPEC =
        new Settings(
            Duration.ofMinutes(1),
            Duration.ofMinutes(1),
            0.95,
            Duration.ofSeconds(5),
            0.10,
            0.1,
            10);

    Duration checkEvery() {
      return interval.compareTo(CHECK_EVERY) < 0 ? interval : CHECK_EVERY;
    }
  }

  /**
   * What the controller remembers of a lane between checks.
   *
   * @param sinceStart how long this instance has seen calls on the lane (zero: none yet)
   * @param sinceDecrease since the last halving (null: none)
   * @param sinceChange since the last change of either kind (null: none)
   */
  public record History(Duration sinceStart, Duration sinceDecrease, Duration sinceChange) {}

  /** Sets a task queue's server-side rate limit (Temporal {@code UpdateTaskQueueConfig}). */
  public interface RateApplier {
    void apply(String taskQueue, double callsPerSecond, String reason);
  }

  private final List<Lane> lanes;
  private final Settings settings;
  private final LaneLedger ledger;
  private final RateApplier applier;
  private final String owner;
  private final MeterRegistry meters;
  private final LongSupplier nanoTime;
  private final Map<String, Double> current = new ConcurrentHashMap<>();

  /**
   * Per lane, the rate this instance last set on the server: set again whenever the ledger's rate
   * differs, also when Redis lost its key (the ledger is a cache; the server's limit follows it).
   */
  private final Map<String, Double> applied = new ConcurrentHashMap<>();

  /**
   * Per lane, when this instance first saw calls in its window and when it began to lead it
   * (nanoTime).
   */
  private final Map<String, Long> trafficSince = new ConcurrentHashMap<>();

  private final Map<String, Long> leadingSince = new ConcurrentHashMap<>();

  /** Per lane, when this instance last decreased / changed the rate (nanoTime). */
  private final Map<String, Long> lastDecrease = new ConcurrentHashMap<>();

  private final Map<String, Long> lastChange = new ConcurrentHashMap<>();
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "lane-rate-controller");
            t.setDaemon(true);
            return t;
          });
  private final AtomicBoolean started = new AtomicBoolean();

  public LaneRateController(
      List<Lane> lanes,
      Settings settings,
      LaneLedger ledger,
      RateApplier applier,
      String owner,
      MeterRegistry meters) {
    this(lanes, settings, ledger, applier, owner, meters, System::nanoTime);
  }

  /**
   * @param nanoTime the clock of the control steps (tests drive it)
   */
  public LaneRateController(
      List<Lane> lanes,
      Settings settings,
      LaneLedger ledger,
      RateApplier applier,
      String owner,
      MeterRegistry meters,
      LongSupplier nanoTime) {
    this.lanes = List.copyOf(lanes);
    this.settings = settings;
    this.ledger = ledger;
    this.applier = applier;
    this.owner = owner;
    this.meters = meters;
    this.nanoTime = nanoTime;
    for (Lane lane : lanes) {
      current.put(lane.name(), lane.configuredRate());
      Gauge.builder("cs_lane_rate", current, m -> m.getOrDefault(lane.name(), Double.NaN))
          .tag("lane", lane.name())
          .description("Current rate limit of the model lane (calls/s), as set on its task queue")
          .register(meters);
    }
  }

  public void start() {
    if (started.compareAndSet(false, true)) {
      long ms = settings.checkEvery().toMillis();
      scheduler.scheduleAtFixedRate(this::tickQuietly, 0, ms, TimeUnit.MILLISECONDS);
    }
  }

  private void tickQuietly() {
    try {
      tick();
    } catch (RuntimeException e) {
      log.warn("lane rate controller: {}", e.toString());
    }
  }

  /** One control step for every lane this instance leads. */
  public void tick() {
    long now = nanoTime.getAsLong();
    for (Lane lane : lanes) {
      String key = lane.taskQueue(); // the ledger's key for the lane
      // the lease outlives a few missed checks (a GC pause) but hands the lane over soon after a
      // leader dies
      Duration lease = settings.checkEvery().multipliedBy(5);
      LaneLedger.LaneStats stats = ledger.stats(key, settings.window());
      if (stats.calls() > 0) {
        trafficSince.putIfAbsent(lane.name(), now);
      }
      if (!ledger.lead(key, owner, lease)) {
        leadingSince.remove(lane.name());
        current.put(lane.name(), ledger.rate(key, lane.configuredRate()));
        continue;
      }
      // a new leader does not know when the last raise was: it waits an interval before raising
      leadingSince.computeIfAbsent(
          lane.name(),
          n -> {
            lastChange.put(n, now);
            return now;
          });
      double rate = ledger.rate(key, lane.configuredRate());
      Duration seen =
          trafficSince.containsKey(lane.name())
              ? elapsed(trafficSince.get(lane.name()), now)
              : Duration.ZERO;
      History history =
          new History(
              seen,
              elapsed(lastDecrease.get(lane.name()), now),
              elapsed(lastChange.get(lane.name()), now));
      double next = decide(rate, lane.configuredRate(), stats, settings, history);
      if (next != rate || !Double.valueOf(next).equals(applied.get(lane.name()))) {
        String reason =
            String.format(
                "success %.1f%%, mean latency %.0f ms over %d calls in %s",
                100 * stats.successRate(),
                stats.meanLatencyMillis(),
                stats.calls(),
                settings.window());
        applier.apply(
            lane.taskQueue(), LaneRates.serverLimit(next), reason); // why the headroom: LaneRates
        ledger.setRate(key, next);
        applied.put(lane.name(), next);
        if (next != rate) {
          String direction = next < rate ? "down" : "up";
          lastChange.put(lane.name(), now);
          if (next < rate) {
            lastDecrease.put(lane.name(), now);
          }
          Counter.builder("cs_lane_rate_changes_total")
              .tag("lane", lane.name())
              .tag("direction", direction)
              .register(meters)
              .increment();
          if (next < rate) {
            log.warn("lane {}: rate {} -> {} calls/s ({})", lane.name(), rate, next, reason);
          } else {
            log.info("lane {}: rate {} -> {} calls/s ({})", lane.name(), rate, next, reason);
          }
        }
      }
      current.put(lane.name(), next);
    }
  }

  private static Duration elapsed(Long fromNanos, long nowNanos) {
    return fromNanos == null ? null : Duration.ofNanos(nowNanos - fromNanos);
  }

  /**
   * The control rule (pure, for tests): the lane's next rate.
   *
   * <ul>
   *   <li>within two windows of the first calls this instance saw: unchanged (except a configured
   *       rate lowered below it);
   *   <li>unhealthy (at least {@code minCalls} calls in the window, success below the minimum or
   *       mean latency above the maximum, with failures unless {@code slowAloneHalves}): halved,
   *       not below {@code minRate}, unless it was halved less than a window ago;
   *   <li>healthy and below the configured rate: raised by {@code stepUp} x configured, at most
   *       once per interval;
   *   <li>never above the configured rate.
   * </ul>
   */
  public static double decide(
      double rate, double configured, LaneLedger.LaneStats stats, Settings s, History history) {
    if (rate > configured) {
      return configured;
    }
    if (history.sinceStart().compareTo(s.window().multipliedBy(2)) < 0) {
      return rate;
    }
    boolean slow =
        stats.meanLatencyMillis() > s.maxMeanLatency().toMillis()
            && (s.slowAloneHalves() || stats.successRate() < 1.0);
    boolean unhealthy =
        stats.calls() >= s.minCalls() && (stats.successRate() < s.minSuccessRate() || slow);
    if (unhealthy) {
      boolean settled =
          history.sinceDecrease() == null || history.sinceDecrease().compareTo(s.window()) >= 0;
      return settled ? Math.max(s.minRate(), round(rate / 2)) : rate;
    }
    boolean due =
        history.sinceChange() == null || history.sinceChange().compareTo(s.interval()) >= 0;
    if (rate < configured && due) {
      return Math.min(configured, round(rate + s.stepUp() * configured));
    }
    return rate;
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** The current rate of a lane as this instance last saw it. */
  public double rate(String lane) {
    return current.getOrDefault(lane, Double.NaN);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
