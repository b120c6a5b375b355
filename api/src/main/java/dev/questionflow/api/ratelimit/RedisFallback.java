package dev.questionflow.api.ratelimit;

import dev.questionflow.activities.lane.RedisBuckets;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The access limits' side of a Redis failure: Redis is left alone for {@code redis-retry-interval},
 * the requests decided by per-instance buckets meanwhile are counted (cs_ratelimit_fallback_total)
 * and logged, at most one WARN per {@code fallback-log-interval}. Apart from {@link AccessLimiter}
 * so that the buckets' logic does not mix with the bookkeeping of Redis's health.
 */
final class RedisFallback {

  // the limiter's name: its log lines keep their logger
  private static final Logger log = LoggerFactory.getLogger(AccessLimiter.class);

  private final RedisBuckets redis;
  private final Counter fallbacks;
  private final long retryIntervalNanos;
  private final long logIntervalNanos;

  /** System.nanoTime() before which Redis is not tried again after a failure. */
  private final AtomicLong redisRetryAt = new AtomicLong(System.nanoTime());

  private final AtomicLong nextFallbackLogAt = new AtomicLong(System.nanoTime());
  private final AtomicLong unloggedFallbacks = new AtomicLong();
  private volatile boolean redisFailing;

  /**
   * @param redis buckets in Redis, or null for per-instance limits (then nothing ever fails)
   */
  RedisFallback(RedisBuckets redis, AccessLimitsProperties properties, MeterRegistry meters) {
    this.redis = redis;
    this.retryIntervalNanos = properties.redisRetryInterval().toNanos();
    this.logIntervalNanos = properties.fallbackLogInterval().toNanos();
    this.fallbacks =
        Counter.builder(AccessLimiter.FALLBACK_METRIC)
            .description(
                "Requests whose access limits were decided by per-instance buckets because Redis failed")
            .register(meters);
  }

  /** Whether Redis may be tried: no failure within {@code redis-retry-interval}. */
  boolean retryDue() {
    return System.nanoTime() - redisRetryAt.get() >= 0;
  }

  /** Whether Redis failed last time it was tried. */
  boolean failing() {
    return redisFailing;
  }

  void redisSucceeded() {
    if (redisFailing) {
      redisFailing = false;
      log.info("access limits: Redis answers again, limits are shared by all instances");
    }
  }

  void redisFailed(RuntimeException e) {
    redisFailing = true;
    redisRetryAt.set(System.nanoTime() + retryIntervalNanos);
    redis.failed();
    logFallback(e);
  }

  /** A request was decided by per-instance buckets, in part or whole. */
  void fellBack() {
    fallbacks.increment();
    unloggedFallbacks.incrementAndGet();
    logFallback(null);
  }

  /**
   * At most one WARN per fallback-log-interval, with the number of fallbacks since the last one.
   */
  private void logFallback(RuntimeException cause) {
    long now = System.nanoTime();
    long next = nextFallbackLogAt.get();
    if (now - next < 0 || !nextFallbackLogAt.compareAndSet(next, now + logIntervalNanos)) {
      return;
    }
    long count = unloggedFallbacks.getAndSet(0);
    String reason =
        cause == null
            ? "Redis unavailable"
            : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    log.warn(
        "access limits: Redis failed ({}); deciding with per-instance buckets (limits hold per instance only), Redis"
            + " tried again in {} ms{}",
        reason,
        retryIntervalNanos / 1_000_000,
        count == 0
            ? ""
            : "; "
                + count
                + " request(s) fell back since the previous message (cs_ratelimit_fallback_total)");
  }
}
