package dev.questionflow.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.questionflow.activities.lane.RedisBuckets;
import dev.questionflow.activities.testing.TestRedis;
import dev.questionflow.api.ratelimit.AccessLimitsProperties.Limit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The limiter against a real Redis (IT_REDIS_URL, default redis://127.0.0.1:6379; skipped when
 * unreachable): two limiters with their own Lettuce clients are two app instances, and they must
 * share one bucket per user.
 */
class AccessLimiterRedisTest {

  private static final String REDIS_URL = TestRedis.URL;

  private final ManualClock clock = new ManualClock();
  private final String keyPrefix = "cs:access-limits:test-" + UUID.randomUUID() + ":";
  private final List<RedisClient> clients = new ArrayList<>();
  private final List<AccessLimiter> limiters = new ArrayList<>();

  @BeforeAll
  static void redisIsReachable() {
    RedisURI uri = RedisURI.create(REDIS_URL);
    uri.setTimeout(Duration.ofSeconds(2));
    RedisClient probe = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> connection = probe.connect()) {
      connection.sync().ping();
    } catch (RuntimeException e) {
      TestRedis.unavailable(e);
    } finally {
      probe.shutdown();
    }
  }

  @AfterEach
  void close() {
    limiters.forEach(AccessLimiter::close);
    clients.forEach(RedisClient::shutdown);
  }

  /** One app instance: its own Lettuce client and connection, its own meters. */
  private AccessLimiter instance(
      String url, Limit global, Limit perUser, SimpleMeterRegistry meters) {
    AccessLimitsProperties properties =
        AccessLimitsProperties.defaults()
            .withLimits(global, perUser, Limit.disabled())
            .withKeyPrefix(
                keyPrefix); // this test's own keys: nothing left by earlier runs or other tests
    RedisClient client = RedisClient.create();
    clients.add(client);
    RedisBuckets redis =
        new RedisBuckets(client, RedisURI.create(url), properties.redisTimeout(), clock);
    redis.awaitConnected(Duration.ofSeconds(5));
    AccessLimiter limiter = new AccessLimiter(properties, redis, clock, meters);
    limiters.add(limiter);
    return limiter;
  }

  private static double count(SimpleMeterRegistry meters, String metric) {
    var counter = meters.find(metric).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void twoInstancesShareOnePerUserBucket() {
    SimpleMeterRegistry metersA = new SimpleMeterRegistry();
    SimpleMeterRegistry metersB = new SimpleMeterRegistry();
    AccessLimiter a = instance(REDIS_URL, Limit.disabled(), Limit.of(3, 1), metersA);
    AccessLimiter b = instance(REDIS_URL, Limit.disabled(), Limit.of(3, 1), metersB);
    assertThat(a.distributed()).isTrue();
    assertThat(b.distributed()).isTrue();
    String user = "rl-shared-" + UUID.randomUUID();

    a.admit(user, "10.0.0.1");
    b.admit(user, "10.0.0.2");
    a.admit(user, "10.0.0.1");

    // 3 tokens in all, whichever instance took them: a per-instance limiter would let 3 more
    // through on each
    AccessLimitExceededException onB =
        catchThrowableOfType(AccessLimitExceededException.class, () -> b.admit(user, "10.0.0.2"));
    assertThat(onB.retryAfterSeconds()).isEqualTo(1);
    assertThatThrownBy(() -> a.admit(user, "10.0.0.1"))
        .isInstanceOf(AccessLimitExceededException.class);
    assertThat(a.availableUserTokens(user)).isZero();

    clock.advance(Duration.ofSeconds(1)); // one token refilled, for both
    b.admit(user, "10.0.0.2");
    assertThatThrownBy(() -> a.admit(user, "10.0.0.1"))
        .isInstanceOf(AccessLimitExceededException.class);

    assertThat(count(metersA, AccessLimiter.FALLBACK_METRIC)).isZero();
    assertThat(count(metersB, AccessLimiter.FALLBACK_METRIC)).isZero();
    assertThat(metersA.get(AccessLimiter.DISTRIBUTED_GAUGE).gauge().value()).isEqualTo(1);
    assertThat(metersA.get(AccessLimiter.REJECTED_METRIC).tag("limit", "user").counter().count())
        .isEqualTo(2);
    assertThat(metersB.get(AccessLimiter.REJECTED_METRIC).tag("limit", "user").counter().count())
        .isEqualTo(1);
  }

  @Test
  void theGlobalBucketIsSharedToo() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    AccessLimiter a = instance(REDIS_URL, Limit.of(97, 1), Limit.disabled(), meters);
    AccessLimiter b = instance(REDIS_URL, Limit.of(97, 1), Limit.disabled(), meters);
    int queued = 0;
    for (int i = 0; i < 100; i++) {
      if ((i % 2 == 0 ? a : b).admit("g-" + i, "10.0.0.1").queued()) {
        queued++;
      }
    }
    assertThat(queued).isEqualTo(3);
    assertThat(meters.get(AccessLimiter.QUEUED_METRIC).counter().count()).isEqualTo(3);
  }

  @Test
  void aBrokenRedisUrlFallsBackToLocalBucketsAndCountsIt() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    AccessLimiter limiter =
        instance("redis://127.0.0.1:1", Limit.disabled(), Limit.of(2, 1), meters);
    String user = "rl-broken-" + UUID.randomUUID();

    limiter.admit(user, "10.0.0.1");
    limiter.admit(user, "10.0.0.1");
    assertThatThrownBy(() -> limiter.admit(user, "10.0.0.1"))
        .isInstanceOf(AccessLimitExceededException.class);

    assertThat(limiter.distributed()).isFalse();
    assertThat(meters.get(AccessLimiter.DISTRIBUTED_GAUGE).gauge().value()).isZero();
    assertThat(meters.get(AccessLimiter.FALLBACK_METRIC).counter().count()).isEqualTo(3);
  }

  @Test
  void aConnectionLostAtRunTimeFallsBackForTheRequestInsteadOfFailingIt() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    AccessLimiter limiter = instance(REDIS_URL, Limit.disabled(), Limit.of(2, 1), meters);
    String user = "rl-lost-" + UUID.randomUUID();
    limiter.admit(user, "10.0.0.1"); // in Redis
    assertThat(limiter.distributed()).isTrue();

    limiterRedis(limiter).dropConnectionForTest();

    // the local bucket starts full: this request and the next pass, the one after is refused
    // locally
    limiter.admit(user, "10.0.0.1");
    limiter.admit(user, "10.0.0.1");
    assertThatThrownBy(() -> limiter.admit(user, "10.0.0.1"))
        .isInstanceOf(AccessLimitExceededException.class);
    assertThat(limiter.distributed()).isFalse();
    assertThat(meters.get(AccessLimiter.FALLBACK_METRIC).counter().count()).isEqualTo(3);
  }

  private static RedisBuckets limiterRedis(AccessLimiter limiter) {
    try {
      var field = AccessLimiter.class.getDeclaredField("redis");
      field.setAccessible(true);
      return (RedisBuckets) field.get(limiter);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
