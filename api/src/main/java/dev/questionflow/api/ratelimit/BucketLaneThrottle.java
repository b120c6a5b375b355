package dev.questionflow.api.ratelimit;

import dev.questionflow.activities.flowcontrol.LaneThrottle;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BlockingStrategy;
import io.github.bucket4j.BucketConfiguration;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LaneThrottle} with Bucket4j: one bucket per lane, capacity 1, refilled greedily every {@code 1 / rate}
 * seconds, in Redis when configured (all instances share it) and in this process otherwise or while Redis fails
 * (counted in {@code cs_lane_throttle_fallback_total}). When the adaptive controller changes the lane's rate, the
 * same bucket is reconfigured ({@code replaceConfiguration}, tokens and reservations kept): a fresh bucket per rate
 * would let the new one's first token go out while reservations made in the old one were still pending, a burst
 * above the quota.
 *
 * <p>Calls take reservations (the bucket goes into debt and each caller sleeps until its slot), so no refill is lost
 * between a token coming free and a waiting call taking it. The catch is a stall (a GC pause, a starved CPU): every
 * caller that slept through its slot would wake at once and go together, a burst above the quota. So a caller that
 * wakes more than {@link #MAX_LATENESS} after its slot gives that slot up and reserves a new one at the back
 * ({@code cs_lane_throttle_late_total}): after a stall the calls resume at the spacing instead of catching up.
 */
final class BucketLaneThrottle implements LaneThrottle {

  private static final Logger log = LoggerFactory.getLogger(BucketLaneThrottle.class);
  static final double SPACING_MARGIN = 0.985;
  static final Duration MAX_LATENESS = Duration.ofMillis(20);
  /** A caller late for this many slots in a row goes anyway: the process is too starved to keep any spacing. */
  static final int MAX_RESERVATIONS = 5;

  private final RedisBuckets redis;
  private final LocalBuckets local;
  private final Counter fallbacks;
  private final Counter lateSlots;
  /** The spacing this instance last gave each lane's bucket (in Redis and locally), to reconfigure on a change. */
  private final Map<String, Long> redisSpacing = new ConcurrentHashMap<>();
  private final Map<String, Long> localSpacing = new ConcurrentHashMap<>();
  /**
   * One reservation in flight per lane and instance, in arrival order: Bucket4j's Lettuce buckets are
   * compare-and-swap, and with dozens of waiting calls retrying their swaps on one key the operations ran past their
   * time limit and fell back to per-instance buckets (over the quota). The lock is held for the reservation only,
   * not the sleep until the slot.
   */
  private final Map<String, ReentrantLock> reserving = new ConcurrentHashMap<>();

  BucketLaneThrottle(RedisBuckets redis, LocalBuckets local, MeterRegistry meters) {
    this.redis = redis;
    this.local = local;
    this.fallbacks = Counter.builder("cs_lane_throttle_fallback_total")
        .description("Lane throttle decisions taken by per-instance buckets because Redis failed").register(meters);
    this.lateSlots = Counter.builder("cs_lane_throttle_late_total")
        .description("Lane slots given up because the caller woke too late for them (a stall)").register(meters);
  }

  static String key(String lane) {
    return "cs:lane-throttle:" + lane;
  }

  @Override
  public void acquire(String lane, double callsPerSecond) throws InterruptedException {
    // spaced 1.5 % wider than the quota: the calls stay under it in every one-second window while their spacing
    // holds, and a backlog still uses ~98.5 % of it
    double rate = Math.max(0.01, callsPerSecond * SPACING_MARGIN);
    long spacingNanos = (long) (1e9 / rate);
    BucketConfiguration configuration =
        BucketConfiguration.builder()
            .addLimit(Bandwidth.builder().capacity(1).refillGreedy(1, Duration.ofNanos(spacingNanos))
                .initialTokens(1).build())
            .build();
    if (redis != null && redis.connected()) {
      try {
        reserve(redis, redisSpacing, lane, spacingNanos, configuration,
            reserving.computeIfAbsent(lane, l -> new ReentrantLock(true)));
        return;
      } catch (RuntimeException e) {
        fallbacks.increment();
        log.debug("lane throttle: Redis failed, deciding locally: {}", e.toString());
      }
    }
    reserve(local, localSpacing, lane, spacingNanos, configuration, null);
  }

  /**
   * Reserves the lane's next slot in {@code store} and sleeps until it; a caller that wakes too late reserves again
   * (at most {@link #MAX_RESERVATIONS} times). The first use by this instance, or a new rate, reconfigures the
   * bucket first: it may still hold another spacing. {@code lock} (may be null) is held while reserving only.
   */
  private void reserve(BucketStore store, Map<String, Long> spacings, String lane, long spacingNanos,
      BucketConfiguration configuration, ReentrantLock lock) throws InterruptedException {
    String key = key(lane);
    if (!Long.valueOf(spacingNanos).equals(spacings.get(lane))) {
      store.replaceConfiguration(key, configuration);
      spacings.put(lane, spacingNanos);
    }
    for (int i = 1; ; i++) {
      SlotSleeper sleeper = new SlotSleeper(lock);
      if (lock != null) {
        lock.lockInterruptibly();
      }
      try {
        store.consumeBlocking(key, configuration, sleeper);
      } finally {
        sleeper.release();
      }
      if (sleeper.onTime() || i == MAX_RESERVATIONS) {
        return;
      }
      lateSlots.increment();
    }
  }

  /**
   * Sleeps until the reserved slot (first letting the next caller reserve, when a lock is given) and tells whether
   * the caller was still on time for it when it woke.
   */
  static final class SlotSleeper implements BlockingStrategy {
    private final ReentrantLock lock;
    private boolean released;
    private long slotNanos = Long.MIN_VALUE; // no sleep: a token was free at once

    SlotSleeper(ReentrantLock lock) {
      this.lock = lock;
    }

    @Override
    public void park(long nanosToPark) throws InterruptedException {
      slotNanos = System.nanoTime() + nanosToPark;
      release(); // the reservation is made: the next caller may reserve while this one sleeps
      BlockingStrategy.PARKING.park(nanosToPark);
    }

    /** Unlocks the reservation lock once (idempotent; no-op without a lock). */
    void release() {
      if (lock != null && !released) {
        released = true;
        lock.unlock();
      }
    }

    boolean onTime() {
      return slotNanos == Long.MIN_VALUE || System.nanoTime() - slotNanos <= MAX_LATENESS.toNanos();
    }
  }
}
