package dev.questionflow.activities.flowcontrol;

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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adaptive rate of each model lane (SPEC "adaptive flow control"): every {@code interval}, over the last
 * {@code window} of the lane's calls (shared stats, so all instances' calls count), below {@code minSuccessRate}
 * success or above {@code maxMeanLatency} mean latency the lane's rate is halved (not below {@code minRate});
 * while healthy it rises by {@code stepUp} x the configured rate per interval up to the configured rate. The new
 * rate goes to the Temporal server as the task queue's rate limit ({@link RateApplier}), so it holds for every
 * worker of every instance at once; one instance per lane decides (a lease in the ledger).
 *
 * <p>Hand-written because it is control logic over Temporal's server-side limit, not a client-side limiter that a
 * library (Resilience4j, Bucket4j) would provide.
 */
public final class LaneRateController implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LaneRateController.class);
  static final double SERVER_HEADROOM = 1.2;

  /** A lane: its name (the model), the task queue its calls run on, its configured rate (calls/s). */
  public record Lane(String name, String taskQueue, double configuredRate) {}

  public record Settings(
      Duration interval,
      Duration window,
      double minSuccessRate,
      Duration maxMeanLatency,
      double stepUp,
      double minRate,
      int minCalls) {

    /** The SPEC's numbers: every minute, 95 % success, 5 s mean latency, +10 % per step. */
    public static final Settings SPEC =
        new Settings(Duration.ofMinutes(1), Duration.ofMinutes(1), 0.95, Duration.ofSeconds(5), 0.10, 0.1, 10);
  }

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
  private final Map<String, Double> current = new ConcurrentHashMap<>();
  private final Map<String, Boolean> applied = new ConcurrentHashMap<>();
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(r -> {
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
    this.lanes = List.copyOf(lanes);
    this.settings = settings;
    this.ledger = ledger;
    this.applier = applier;
    this.owner = owner;
    this.meters = meters;
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
      long ms = settings.interval().toMillis();
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
    for (Lane lane : lanes) {
      String key = lane.taskQueue(); // the ledger's key for the lane
      if (!ledger.lead(key, owner, settings.interval().multipliedBy(3))) {
        current.put(lane.name(), ledger.rate(key, lane.configuredRate()));
        continue;
      }
      double rate = ledger.rate(key, lane.configuredRate());
      LaneLedger.LaneStats stats = ledger.stats(key, settings.window());
      double next = decide(rate, lane.configuredRate(), stats, settings);
      if (next != rate || !applied.containsKey(lane.name())) {
        String reason =
            String.format("success %.1f%%, mean latency %.0f ms over %d calls in %s",
                100 * stats.successRate(), stats.meanLatencyMillis(), stats.calls(), settings.window());
        // the server's limit gets a little headroom: its token bucket dispatches in bursts and its matcher adds
        // latency, so at exactly the quota a backlog would be served below it; the LaneThrottle spaces the calls
        // to the exact quota in front of the model
        applier.apply(lane.taskQueue(), next * SERVER_HEADROOM, reason);
        ledger.setRate(key, next);
        applied.put(lane.name(), true);
        if (next != rate) {
          String direction = next < rate ? "down" : "up";
          Counter.builder("cs_lane_rate_changes_total").tag("lane", lane.name()).tag("direction", direction)
              .register(meters).increment();
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

  /** The control rule (pure, for tests). */
  public static double decide(double rate, double configured, LaneLedger.LaneStats stats, Settings s) {
    boolean enough = stats.calls() >= s.minCalls();
    boolean unhealthy =
        enough
            && (stats.successRate() < s.minSuccessRate()
                || stats.meanLatencyMillis() > s.maxMeanLatency().toMillis());
    if (unhealthy) {
      return Math.max(s.minRate(), rate / 2);
    }
    if (rate < configured) {
      return Math.min(configured, round(rate + s.stepUp() * configured));
    }
    return Math.min(rate, configured);
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
