package dev.questionflow.activities.lane;

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
 * {@link LaneThrottle} with Bucket4j: one bucket per lane, capacity 1, refilled greedily every
 * {@code 1 / rate} seconds, in Redis when configured (all instances share it) and in this process
 * otherwise or while Redis fails (counted in {@code cs_lane_throttle_fallback_total}). When the
 * adaptive controller changes the lane's rate, the same bucket is reconfigured ({@code
 * replaceConfiguration}, tokens and reservations kept): a fresh bucket per rate would let the new
 * one's first token go out while reservations made in the old one were still pending, a burst above
 * the quota.
 *
 * <p>Calls take reservations (the bucket goes into debt and each caller sleeps until its slot), so
 * no refill is lost between a token coming free and a waiting call taking it. The catch is a stall
 * (a GC pause, a starved CPU): every caller that slept through its slot would wake at once and go
 * together, a burst above the quota. So a caller that wakes more than {@link #MAX_LATENESS} after
 * its slot gives that slot up and reserves a new one at the back ({@code
 * cs_lane_throttle_late_total}): after a stall the calls resume at the spacing instead of catching
 * up.
 */
public final class BucketLaneThrottle implements LaneThrottle {

  private static final Logger log = LoggerFactory.getLogger(BucketLaneThrottle.class);
  static final double SPACING_MARGIN = 0.985;
  static final Duration MAX_LATENESS = Duration.ofMillis(20);

  /**
   * A caller late for this many slots in a row goes anyway: the process is too starved to keep any
   * spacing.
   */
  static final int MAX_RESERVATIONS = 5;

  /**
   * The release window is this much longer than n / rate: room for the call's way from here to the
   * model.
   */
  static final double WINDOW_MARGIN = 1.01;

  /**
   * Returns 0 and logs the release, or the microseconds to wait until the n-th last release leaves
   * the window.
   */
  private static final String WINDOW_LOG =
      """
      local t = redis.call('TIME')
      local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
      local n = tonumber(ARGV[1])
      if redis.call('LLEN', KEYS[1]) >= n then
        local wait = tonumber(redis.call('LINDEX', KEYS[1], n - 1)) + tonumber(ARGV[2]) - now
        if wait > 0 then
          return wait
        end
      end
      redis.call('LPUSH', KEYS[1], now)
      redis.call('LTRIM', KEYS[1], 0, n - 1)
      redis.call('PEXPIRE', KEYS[1], 60000)
      return 0
      """;

  private final RedisBuckets redis;
  private final LocalBuckets local;
  private final Counter fallbacks;
  private final Counter lateSlots;
  private final Counter windowWaits;
  private final Map<String, java.util.ArrayDeque<Long>> localReleases = new ConcurrentHashMap<>();

  /**
   * The spacing this instance last gave each lane's bucket (in Redis and locally), to reconfigure
   * on a change.
   */
  private final Map<String, Long> redisSpacing = new ConcurrentHashMap<>();

  private final Map<String, Long> localSpacing = new ConcurrentHashMap<>();

  /**
   * One reservation in flight per lane and instance, in arrival order: Bucket4j's Lettuce buckets
   * are compare-and-swap, and with dozens of waiting calls retrying their swaps on one key the
   * operations ran past their time limit and fell back to per-instance buckets (over the quota).
   * The lock is held for the reservation only, not the sleep until the slot.
   */
  private final Map<String, ReentrantLock> reserving = new ConcurrentHashMap<>();

  public BucketLaneThrottle(RedisBuckets redis, LocalBuckets local, MeterRegistry meters) {
    this.redis = redis;
    this.local = local;
    this.fallbacks =
        Counter.builder("cs_lane_throttle_fallback_total")
            .description(
                "Lane throttle decisions taken by per-instance buckets because Redis failed")
            .register(meters);
    this.windowWaits =
        Counter.builder("cs_lane_throttle_window_waits_total")
            .description(
                "Lane calls held back by the one-second cap (the spacing alone would have put them over it)")
            .register(meters);
    this.lateSlots =
        Counter.builder("cs_lane_throttle_late_total")
            .description("Lane slots given up because the caller woke too late for them (a stall)")
            .register(meters);
  }

  static String key(String lane) {
    return "cs:lane-throttle:" + lane;
  }

  @Override
  public void acquire(String lane, double callsPerSecond) throws InterruptedException {
    // spaced 1.5 % wider than the quota: the calls stay under it in every one-second window while
    // their spacing
    // holds, and a backlog still uses ~98.5 % of it
    double rate = Math.max(0.01, callsPerSecond * SPACING_MARGIN);
    long spacingNanos = (long) (1e9 / rate);
    BucketConfiguration configuration =
        BucketConfiguration.builder()
            .addLimit(
                Bandwidth.builder()
                    .capacity(1)
                    .refillGreedy(1, Duration.ofNanos(spacingNanos))
                    .initialTokens(1)
                    .build())
            .build();
    if (redis != null && redis.connected()) {
      try {
        reserve(
            redis,
            redisSpacing,
            lane,
            spacingNanos,
            configuration,
            reserving.computeIfAbsent(lane, l -> new ReentrantLock(true)));
        capWindow(lane, callsPerSecond, true);
        return;
      } catch (RuntimeException e) {
        fallbacks.increment();
        log.debug("lane throttle: Redis failed, deciding locally: {}", e.toString());
      }
    }
    reserve(local, localSpacing, lane, spacingNanos, configuration, null);
    capWindow(lane, callsPerSecond, false);
  }

  /**
   * The hard cap behind the spacing: a call is released only if fewer than {@code n = floor(rate)}
   * calls of the lane were released in the last {@code n / rate} seconds (plus {@link
   * #WINDOW_MARGIN} for the way to the model), else it waits until the oldest of those leaves the
   * window. The spacing alone keeps every window at the quota only while the callers wake on time;
   * a caller a few milliseconds late next to one on time puts 11 calls into a second. Checked at
   * the moment of release against a log of the last n releases, in Redis (Redis's clock, so the
   * instances agree) or per instance without it. Hand-written: Bucket4j has token buckets, not a
   * sliding-window log.
   */
  void capWindow(String lane, double callsPerSecond, boolean shared) throws InterruptedException {
    int n = Math.max(1, (int) Math.floor(callsPerSecond + 1e-9));
    long windowMicros = (long) (n / callsPerSecond * 1e6 * WINDOW_MARGIN);
    for (int attempt = 0; attempt < MAX_RESERVATIONS * 10; attempt++) {
      long waitMicros =
          shared
              ? redis.evalInteger(
                  WINDOW_LOG,
                  new String[] {key(lane) + ":released"},
                  Integer.toString(n),
                  Long.toString(windowMicros))
              : localWindow(lane, n, windowMicros);
      if (waitMicros <= 0) {
        return;
      }
      windowWaits.increment();
      java.util.concurrent.locks.LockSupport.parkNanos(waitMicros * 1000);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  private long localWindow(String lane, int n, long windowMicros) {
    java.util.ArrayDeque<Long> released =
        localReleases.computeIfAbsent(lane, l -> new java.util.ArrayDeque<>());
    synchronized (released) {
      long now = System.nanoTime() / 1000;
      if (released.size() >= n) {
        long wait = released.peekFirst() + windowMicros - now;
        if (wait > 0) {
          return wait;
        }
      }
      released.addLast(now);
      while (released.size() > n) {
        released.removeFirst();
      }
      return 0;
    }
  }

  /**
   * Reserves the lane's next slot in {@code store} and sleeps until it; a caller that wakes too
   * late reserves again (at most {@link #MAX_RESERVATIONS} times). The first use by this instance,
   * or a new rate, reconfigures the bucket first: it may still hold another spacing. {@code lock}
   * (may be null) is held while reserving only.
   */
  private void reserve(
      BucketStore store,
      Map<String, Long> spacings,
      String lane,
      long spacingNanos,
      BucketConfiguration configuration,
      ReentrantLock lock)
      throws InterruptedException {
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
   * Sleeps until the reserved slot (first letting the next caller reserve, when a lock is given)
   * and tells whether the caller was still on time for it when it woke.
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
