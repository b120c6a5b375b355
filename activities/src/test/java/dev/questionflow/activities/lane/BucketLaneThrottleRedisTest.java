package dev.questionflow.activities.lane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.testing.TestRedis;
import io.github.bucket4j.TimeMeter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The lane throttle's hard cap across two instances (two Lettuce clients) through a real Redis. */
class BucketLaneThrottleRedisTest {

  private final List<RedisClient> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(RedisClient::shutdown);
  }

  private BucketLaneThrottle instance() {
    RedisClient client = RedisClient.create();
    clients.add(client);
    RedisBuckets redis =
        new RedisBuckets(
            client,
            RedisURI.create(TestRedis.URL),
            Duration.ofSeconds(2),
            TimeMeter.SYSTEM_MILLISECONDS);
    if (!redis.awaitConnected(Duration.ofSeconds(5))) {
      TestRedis.unavailable(new IllegalStateException("no connection within 5 s"));
    }
    return new BucketLaneThrottle(
        redis, new LocalBuckets(TimeMeter.SYSTEM_NANOTIME, 100), new SimpleMeterRegistry());
  }

  @Test
  void theOneSecondCapIsSharedByTwoInstancesThroughRedis() throws Exception {
    String lane = "test-cap-" + UUID.randomUUID();
    BucketLaneThrottle first = instance();
    BucketLaneThrottle second = instance();
    long start = System.nanoTime();
    first.capWindow(lane, 3.0, true);
    second.capWindow(lane, 3.0, true);
    first.capWindow(lane, 3.0, true);

    second.capWindow(
        lane, 3.0, true); // the 4th in the window, from the other instance: waits for the 1st

    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(990_000_000L);
  }
}
