package dev.questionflow.api.ratelimit;

import dev.questionflow.activities.lane.LocalBuckets;
import dev.questionflow.activities.lane.RedisBuckets;
import dev.questionflow.api.ratelimit.AccessLimitsProperties.Limit;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The access-layer limits. Every API request: a bucket per caller (a back end, staff member or
 * admin) or per web visitor, and for the public web page a bucket per client IP (a back end sends
 * all its users' traffic from a few addresses, so it is never limited by IP). Every question: a
 * bucket per end user that refuses (429) and a global bucket that only marks the question as queued
 * (it is still accepted and waits in the model lane's queue).
 *
 * <p>Buckets live in Redis when configured (one bucket per key for all instances), in this process
 * otherwise. When Redis fails (error or {@code redis-timeout}), the request is decided by this
 * instance's local buckets, the fallback is counted and logged (sampled), and Redis is left alone
 * for {@code redis-retry-interval}.
 */
public class AccessLimiter implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AccessLimiter.class);

  public static final String REJECTED_METRIC = "cs.ratelimit.rejected";
  public static final String QUEUED_METRIC = "cs.ratelimit.queued";
  public static final String FALLBACK_METRIC = "cs.ratelimit.fallback";
  public static final String DISTRIBUTED_GAUGE = "cs.ratelimit.distributed";

  /**
   * The three limits; {@link #tag()} is the metric tag and the problem's {@code limit} property.
   */
  public enum Kind {
    USER("user", "questions from this user"),
    IP("ip", "requests from this address"),
    GLOBAL("global", "questions"),
    CALLER("caller", "requests from this caller"),
    VISITOR("visitor", "requests from this visitor"),
    /** Temporal's codec, per staff member or admin. */
    CODEC("codec", "codec requests from this requester"),
    /** Failed authentications per client address (FailedAuthentications). */
    FAILED_AUTH("failed-auth", "failed authentications from this address"),
    /** Not a bucket: the cap on open event streams (StatusStreams). */
    STREAMS("streams", "open event streams");

    private final String tag;
    private final String what;

    Kind(String tag, String what) {
      this.tag = tag;
      this.what = what;
    }

    public String tag() {
      return tag;
    }

    String what() {
      return what;
    }
  }

  private final AccessLimitsProperties properties;
  private final LocalBuckets local;
  private final RedisBuckets redis; // null = per-instance limits only
  private final Map<Kind, Limit> limits = new EnumMap<>(Kind.class);
  private final Map<Kind, BucketConfiguration> configurations = new EnumMap<>(Kind.class);
  private final Map<Kind, String> keyPrefixes = new EnumMap<>(Kind.class);
  private final Map<Kind, Counter> rejected = new EnumMap<>(Kind.class);
  private final Counter queued;
  private final boolean failedAuthOn;
  private final long nanosPerFailedAuth;

  /** Redis's failures: when it is tried again, the fallbacks counted and logged. */
  private final RedisFallback fallback;

  /**
   * @param redis buckets in Redis, or null for per-instance limits
   * @param clock the buckets' clock (Bucket4j time meter; wall-clock based when buckets are shared)
   */
  AccessLimiter(
      AccessLimitsProperties properties,
      RedisBuckets redis,
      TimeMeter clock,
      MeterRegistry meters) {
    this.properties = properties;
    this.redis = redis;
    this.local = new LocalBuckets(clock, properties.localMaxKeys());
    limits.put(Kind.USER, properties.perUser());
    limits.put(Kind.IP, properties.perIp());
    limits.put(Kind.GLOBAL, properties.global());
    limits.put(Kind.CALLER, properties.perCaller());
    limits.put(Kind.VISITOR, properties.perVisitor());
    limits.put(Kind.CODEC, properties.perCodecRequester());
    limits.forEach(
        (kind, limit) -> {
          configurations.put(
              kind,
              BucketConfiguration.builder()
                  .addLimit(
                      l ->
                          l.capacity(limit.capacity())
                              .refillGreedy(limit.refillPerSecond(), Duration.ofSeconds(1)))
                  .build());
          // the limit is part of the key: a changed limit starts new buckets instead of meeting old
          // state in Redis
          keyPrefixes.put(
              kind,
              properties.keyPrefix()
                  + kind.tag()
                  + ":"
                  + limit.capacity()
                  + "-"
                  + limit.refillPerSecond()
                  + ":");
        });
    // failed authentications: attempts per window, not per second
    AccessLimitsProperties.FailedAuth failedAuth = properties.failedAuthPerIp();
    failedAuthOn = failedAuth.on();
    configurations.put(
        Kind.FAILED_AUTH,
        BucketConfiguration.builder()
            .addLimit(
                l ->
                    l.capacity(failedAuth.attempts())
                        .refillGreedy(failedAuth.attempts(), failedAuth.window()))
            .build());
    keyPrefixes.put(
        Kind.FAILED_AUTH,
        properties.keyPrefix()
            + Kind.FAILED_AUTH.tag()
            + ":"
            + failedAuth.attempts()
            + "-"
            + failedAuth.window().toSeconds()
            + ":");
    nanosPerFailedAuth = failedAuth.window().toNanos() / failedAuth.attempts();
    for (Kind kind :
        List.of(
            Kind.USER,
            Kind.IP,
            Kind.CALLER,
            Kind.VISITOR,
            Kind.STREAMS,
            Kind.CODEC,
            Kind.FAILED_AUTH)) {
      rejected.put(
          kind,
          Counter.builder(REJECTED_METRIC)
              .description("Requests refused with 429 by an access limit")
              .tag("limit", kind.tag())
              .register(meters));
    }
    this.queued =
        Counter.builder(QUEUED_METRIC)
            .description(
                "Questions accepted over the global access limit (they wait in the model lane's queue)")
            .register(meters);
    this.fallback = new RedisFallback(redis, properties, meters);
    Gauge.builder(DISTRIBUTED_GAUGE, this, l -> l.distributed() ? 1 : 0)
        .description("1 = access limits shared through Redis, 0 = per instance")
        .strongReference(true)
        .register(meters);
  }

  /**
   * Takes a token from the request's own bucket ({@link Kind#CALLER} or {@link Kind#VISITOR}) and,
   * for the public web page ({@code clientIp} not null), from its address's bucket.
   *
   * @throws AccessLimitExceededException over a limit (the request must do nothing)
   */
  public void admitRequest(Kind kind, String requesterKey, String clientIp) {
    if (!properties.enabled()) {
      return;
    }
    Request request = new Request();
    try {
      take(
          request,
          kind == Kind.IP ? List.of(Kind.IP) : List.of(kind, Kind.IP),
          requesterKey,
          clientIp);
    } finally {
      request.done();
    }
  }

  /**
   * Takes a token from the per-user, per-IP (when {@code clientIp} is given) and global buckets of
   * a question.
   *
   * @param userKey the end user, scoped to its caller
   * @return the admission; {@link Admission#queued()} when only the global limit is exceeded
   * @throws AccessLimitExceededException per-user or per-IP limit exceeded (nothing may be
   *     started); the tokens already taken for this request are given back
   */
  public Admission admit(String userKey, String clientIp) {
    if (!properties.enabled()) {
      return Admission.UNLIMITED;
    }
    Request request = new Request();
    try {
      List<Admission.Token> taken = take(request, List.of(Kind.USER, Kind.IP), userKey, clientIp);
      boolean overGlobal = false;
      if (limits.get(Kind.GLOBAL).on()) {
        ConsumptionProbe probe = request.consume(Kind.GLOBAL, "all");
        if (probe.isConsumed()) {
          taken.add(request.token(Kind.GLOBAL, "all"));
        } else {
          overGlobal = true;
          queued.increment();
        }
      }
      return new Admission(overGlobal, List.copyOf(taken));
    } finally {
      request.done();
    }
  }

  /**
   * Takes one token of each kind in order (the first id for the first kind, the second for IP); all
   * or none.
   */
  private List<Admission.Token> take(
      Request request, List<Kind> kinds, String id, String clientIp) {
    List<Admission.Token> taken = new ArrayList<>(3);
    for (Kind kind : kinds) {
      String key = kind == Kind.IP ? clientIp : id;
      if (!limits.get(kind).on() || key == null) {
        continue;
      }
      ConsumptionProbe probe = request.consume(kind, key);
      if (!probe.isConsumed()) {
        refund(taken, request);
        refused(kind);
        throw new AccessLimitExceededException(
            kind, retryAfterSeconds(probe.getNanosToWaitForRefill()));
      }
      taken.add(request.token(kind, key));
    }
    return taken;
  }

  /**
   * Counts a failed authentication of the address in its bucket (shared through Redis like the
   * others).
   *
   * @return how long further attempts from the address are to be refused before their credential is
   *     checked, in nanoseconds: 0 while attempts are left; once this one took the last, until one
   *     is given back; when none was left (the address was refused on another instance), until the
   *     bucket has one again
   */
  public long failedAuthentication(String clientIp) {
    if (!properties.enabled() || !failedAuthOn || clientIp == null) {
      return 0;
    }
    Request request = new Request();
    try {
      ConsumptionProbe probe = request.consume(Kind.FAILED_AUTH, clientIp);
      if (!probe.isConsumed()) {
        return Math.max(1, probe.getNanosToWaitForRefill());
      }
      return probe.getRemainingTokens() == 0 ? nanosPerFailedAuth : 0;
    } finally {
      request.done();
    }
  }

  /** Counts a refusal (cs_ratelimit_rejected_total{limit}). */
  public void refused(Kind kind) {
    rejected.get(kind).increment();
  }

  /**
   * Gives back the tokens of an admission whose request started nothing (a duplicate submit of an
   * accepted question, or a failed start), so that a second click on "send" does not count twice.
   * Best effort: errors are ignored.
   */
  public void refund(Admission admission) {
    if (admission.taken().isEmpty()) {
      return;
    }
    refund(admission.taken(), null);
  }

  private void refund(List<Admission.Token> tokens, Request request) {
    for (Admission.Token token : tokens) {
      BucketConfiguration configuration = configurations.get(token.kind());
      try {
        (token.remote() ? redis : local).refund(token.key(), configuration);
      } catch (RuntimeException e) {
        log.debug(
            "access limits: could not give back a token of {}: {}", token.key(), e.toString());
      }
    }
  }

  /** True while the buckets are shared through Redis (configured, connected and not failing). */
  public boolean distributed() {
    return redis != null && redis.connected() && !fallback.failing();
  }

  /** Tokens left in a user's bucket (tests and diagnostics); reads Redis when shared. */
  long availableUserTokens(String userId) {
    String key = keyPrefixes.get(Kind.USER) + userId;
    BucketConfiguration configuration = configurations.get(Kind.USER);
    return distributed()
        ? redis.availableTokens(key, configuration)
        : local.availableTokens(key, configuration);
  }

  public static long retryAfterSeconds(long nanosToWait) {
    return Math.max(
        1, (nanosToWait + TimeUnit.SECONDS.toNanos(1) - 1) / TimeUnit.SECONDS.toNanos(1));
  }

  /**
   * One admit() call: uses Redis until it fails, then local buckets for the rest of the request.
   */
  private final class Request {
    private boolean remote = redis != null && fallback.retryDue();
    private boolean fellBack = redis != null && !remote;

    ConsumptionProbe consume(Kind kind, String id) {
      String key = keyPrefixes.get(kind) + id;
      BucketConfiguration configuration = configurations.get(kind);
      if (remote) {
        try {
          ConsumptionProbe probe = redis.tryConsume(key, configuration);
          fallback.redisSucceeded();
          return probe;
        } catch (RuntimeException e) {
          remote = false;
          fellBack = true;
          fallback.redisFailed(e);
        }
      }
      return local.tryConsume(key, configuration);
    }

    Admission.Token token(Kind kind, String id) {
      return new Admission.Token(kind, keyPrefixes.get(kind) + id, remote);
    }

    void done() {
      if (fellBack) {
        fallback.fellBack();
      }
    }
  }

  @Override
  public void close() {
    if (redis != null) {
      redis.close();
    }
  }
}
