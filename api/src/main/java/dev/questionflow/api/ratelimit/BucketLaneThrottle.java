package dev.questionflow.api.ratelimit;

import dev.questionflow.activities.flowcontrol.LaneThrottle;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LaneThrottle} with Bucket4j: one bucket per lane, capacity 1, refilled greedily every {@code 1 / rate}
 * seconds, in Redis when configured (all instances share it) and in this process otherwise or while Redis fails
 * (counted in {@code cs_lane_throttle_fallback_total}). When the adaptive controller changes the lane's rate, the
 * same bucket is reconfigured ({@code replaceConfiguration}, tokens and reservations kept): a fresh bucket per rate
 * would let the new one's first token go out while reservations made in the old one were still pending, a burst
 * above the quota.
 */
final class BucketLaneThrottle implements LaneThrottle {

  private static final Logger log = LoggerFactory.getLogger(BucketLaneThrottle.class);
  static final double SPACING_MARGIN = 0.97;

  private final RedisBuckets redis;
  private final LocalBuckets local;
  private final Counter fallbacks;
  /** The spacing this instance last gave each lane's bucket (in Redis and locally), to reconfigure on a change. */
  private final Map<String, Long> redisSpacing = new ConcurrentHashMap<>();
  private final Map<String, Long> localSpacing = new ConcurrentHashMap<>();

  BucketLaneThrottle(RedisBuckets redis, LocalBuckets local, MeterRegistry meters) {
    this.redis = redis;
    this.local = local;
    this.fallbacks = Counter.builder("cs_lane_throttle_fallback_total")
        .description("Lane throttle decisions taken by per-instance buckets because Redis failed").register(meters);
  }

  static String key(String lane) {
    return "cs:lane-throttle:" + lane;
  }

  @Override
  public void acquire(String lane, double callsPerSecond) throws InterruptedException {
    // spaced 3 % wider than the quota: with network jitter the provider still never sees more than the quota in
    // any one-second window, and a backlog still uses ~97 % of it
    double rate = Math.max(0.01, callsPerSecond * SPACING_MARGIN);
    long spacingNanos = (long) (1e9 / rate);
    BucketConfiguration configuration =
        BucketConfiguration.builder()
            .addLimit(Bandwidth.builder().capacity(1).refillGreedy(1, Duration.ofNanos(spacingNanos))
                .initialTokens(1).build())
            .build();
    String key = key(lane);
    if (redis != null && redis.connected()) {
      try {
        if (!Long.valueOf(spacingNanos).equals(redisSpacing.get(lane))) {
          // first use by this instance, or a new rate: the shared bucket may still hold another spacing
          redis.replaceConfiguration(key, configuration);
          redisSpacing.put(lane, spacingNanos);
        }
        // a reservation: the bucket goes into debt and this thread sleeps until its slot, so no refill is lost
        // between a token coming free and a waiting call taking it
        redis.consumeBlocking(key, configuration);
        return;
      } catch (RuntimeException e) {
        fallbacks.increment();
        log.debug("lane throttle: Redis failed, deciding locally: {}", e.toString());
      }
    }
    if (!Long.valueOf(spacingNanos).equals(localSpacing.get(lane))) {
      local.replaceConfiguration(key, configuration);
      localSpacing.put(lane, spacingNanos);
    }
    local.consumeBlocking(key, configuration);
  }
}
