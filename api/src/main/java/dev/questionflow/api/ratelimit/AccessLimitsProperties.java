package dev.questionflow.api.ratelimit;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Access-layer limits ({@code cs.access-limits}): token buckets per caller, per web visitor and per
 * IP (the public page and anonymous requests) on every API request, and per user and global on
 * {@code POST /api/v1/questions}. Unset keys take the defaults below (SPEC field values for the
 * global limit).
 *
 * @param enabled false = no limit at all
 * @param global the whole instance group (shared through Redis): over it a question is still
 *     accepted, marked {@code "queued": true}, and waits in the model lane's queue
 * @param perUser per {@code userId}: over it 429 with Retry-After
 * @param perIp per client IP of the public web page, every request: over it 429 with Retry-After
 * @param perCaller per chat back end, staff member or admin, every API request (reads and event
 *     streams too)
 * @param perVisitor per anonymous web visitor, every API request
 * @param redisTimeout time limit of one bucket operation in Redis; a slower or failed operation
 *     falls back to the per-instance buckets for that request
 * @param redisRetryInterval after a Redis failure, the limiter uses the per-instance buckets for
 *     this long before trying Redis again (so an outage costs one timeout per interval, not one per
 *     request)
 * @param redisConnectTimeout how long start-up waits for the limiter's Redis connection (it keeps
 *     trying afterwards)
 * @param fallbackLogInterval at most one WARN line per interval about falling back (the rest are
 *     counted)
 * @param localMaxKeys per-instance buckets kept in memory (least recently used are dropped)
 * @param keyPrefix prefix of the Redis keys
 * @param perCodecRequester per staff member or admin, every request to Temporal's codec ({@code
 *     /codec/**}): the Web UI decodes a history page in many small requests, so a burst is generous
 * @param failedAuthPerIp failed authentications (a wrong API key, a forged, expired or foreign
 *     token or cookie: every 401 of a request that carried a credential) per client address: after
 *     {@code attempts} within {@code window}, further requests with a credential from that address
 *     get 429 before it is checked
 */
@ConfigurationProperties("cs.access-limits")
public record AccessLimitsProperties(
    Boolean enabled,
    Limit global,
    Limit perUser,
    Limit perIp,
    Limit perCaller,
    Limit perVisitor,
    Duration redisTimeout,
    Duration redisRetryInterval,
    Duration redisConnectTimeout,
    Duration fallbackLogInterval,
    Integer localMaxKeys,
    String keyPrefix,
    Limit perCodecRequester,
    FailedAuth failedAuthPerIp) {

  public AccessLimitsProperties {
    enabled = enabled == null || enabled;
    global = Limit.withDefaults(global, 10, 20);
    perUser = Limit.withDefaults(perUser, 20, 5);
    perIp = Limit.withDefaults(perIp, 60, 20);
    perCaller = Limit.withDefaults(perCaller, 2000, 1000);
    perVisitor = Limit.withDefaults(perVisitor, 30, 10);
    redisTimeout = redisTimeout == null ? Duration.ofMillis(200) : redisTimeout;
    redisRetryInterval = redisRetryInterval == null ? Duration.ofSeconds(5) : redisRetryInterval;
    redisConnectTimeout = redisConnectTimeout == null ? Duration.ofSeconds(2) : redisConnectTimeout;
    fallbackLogInterval = fallbackLogInterval == null ? Duration.ofMinutes(1) : fallbackLogInterval;
    localMaxKeys = localMaxKeys == null ? 100_000 : localMaxKeys;
    keyPrefix = keyPrefix == null || keyPrefix.isBlank() ? "cs:access-limits:" : keyPrefix;
    perCodecRequester = Limit.withDefaults(perCodecRequester, 600, 100);
    failedAuthPerIp = FailedAuth.withDefaults(failedAuthPerIp);
  }

  /** All defaults: what the app uses when application.yml says nothing. */
  public static AccessLimitsProperties defaults() {
    return new AccessLimitsProperties(
        null, null, null, null, null, null, null, null, null, null, null, null, null, null);
  }

  public AccessLimitsProperties withLimits(Limit global, Limit perUser, Limit perIp) {
    return copy(global, perUser, perIp, keyPrefix);
  }

  public AccessLimitsProperties withKeyPrefix(String prefix) {
    return copy(global, perUser, perIp, prefix);
  }

  private AccessLimitsProperties copy(
      Limit newGlobal, Limit newPerUser, Limit newPerIp, String newKeyPrefix) {
    return new AccessLimitsProperties(
        enabled,
        newGlobal,
        newPerUser,
        newPerIp,
        perCaller,
        perVisitor,
        redisTimeout,
        redisRetryInterval,
        redisConnectTimeout,
        fallbackLogInterval,
        localMaxKeys,
        newKeyPrefix,
        perCodecRequester,
        failedAuthPerIp);
  }

  /**
   * Failed authentications allowed per client address: {@code attempts} at once, given back evenly
   * over {@code window} (a token bucket of that capacity refilled at attempts/window).
   */
  public record FailedAuth(Boolean enabled, Long attempts, Duration window) {

    public FailedAuth {
      if (attempts != null && attempts < 1) {
        throw new IllegalArgumentException(
            "cs.access-limits.failed-auth-per-ip.attempts must be at least 1, is " + attempts);
      }
      if (window != null && (window.isNegative() || window.isZero())) {
        throw new IllegalArgumentException(
            "cs.access-limits.failed-auth-per-ip.window must be positive, is " + window);
      }
    }

    static FailedAuth withDefaults(FailedAuth given) {
      return given == null
          ? new FailedAuth(true, 20L, Duration.ofMinutes(1))
          : new FailedAuth(
              given.enabled == null || given.enabled,
              given.attempts == null ? 20L : given.attempts,
              given.window == null ? Duration.ofMinutes(1) : given.window);
    }

    public boolean on() {
      return enabled == null || enabled;
    }

    @Override
    public String toString() {
      return on() ? attempts + " per " + window : "off";
    }
  }

  /**
   * One token bucket: up to {@code capacity} requests at once (the burst), refilled with {@code
   * refillPerSecond} tokens a second (the sustained rate).
   */
  public record Limit(Boolean enabled, Long capacity, Long refillPerSecond) {

    public Limit {
      if (capacity != null && capacity < 1) {
        throw new IllegalArgumentException(
            "cs.access-limits.*.capacity must be at least 1, is " + capacity);
      }
      if (refillPerSecond != null && refillPerSecond < 1) {
        throw new IllegalArgumentException(
            "cs.access-limits.*.refill-per-second must be at least 1, is " + refillPerSecond);
      }
    }

    public static Limit of(long capacity, long refillPerSecond) {
      return new Limit(true, capacity, refillPerSecond);
    }

    public static Limit disabled() {
      return new Limit(false, null, null);
    }

    static Limit withDefaults(Limit limit, long capacity, long refillPerSecond) {
      if (limit == null) {
        return of(capacity, refillPerSecond);
      }
      return new Limit(
          limit.enabled == null || limit.enabled,
          limit.capacity == null ? capacity : limit.capacity,
          limit.refillPerSecond == null ? refillPerSecond : limit.refillPerSecond);
    }

    public boolean on() {
      return enabled == null || enabled;
    }

    @Override
    public String toString() {
      return on() ? refillPerSecond + "/s burst " + capacity : "off";
    }
  }
}
