package dev.questionflow.activities.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.resilience.Dependency;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import io.lettuce.core.RedisConnectionException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class RedisOrMemoryTest {

  interface Store {
    String read(String key);
  }

  private final AtomicBoolean redisUp = new AtomicBoolean(true);
  private final Store redis =
      key -> {
        if (!redisUp.get()) {
          throw new RedisConnectionException("connection refused");
        }
        if (key.isEmpty()) {
          throw new IllegalArgumentException("empty key");
        }
        return "redis:" + key;
      };
  private final Store memory = key -> "memory:" + key;
  private final UpstreamErrors errors = new UpstreamErrors(new SimpleMeterRegistry());
  private final Store store =
      RedisOrMemory.of(Store.class, redis, memory, DependencyBreakers.withSpecDefaults(), errors);

  @Test
  void whileRedisFailsTheStoreAnswersFromMemoryAndCountsIt() {
    assertThat(store.read("a")).isEqualTo("redis:a");
    redisUp.set(false);
    assertThat(store.read("a")).isEqualTo("memory:a");
    assertThat(errors.count(Dependency.REDIS, UpstreamErrors.Kind.UNREACHABLE)).isEqualTo(1);
    redisUp.set(true);
    assertThat(store.read("a")).as("back to Redis at once").isEqualTo("redis:a");
  }

  @Test
  void aMistakeOfTheCallerIsNotHiddenByTheFallback() {
    assertThatThrownBy(() -> store.read("")).isInstanceOf(IllegalArgumentException.class);
  }
}
