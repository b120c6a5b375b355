package dev.questionflow.activities.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.questionflow.activities.redis.ReplicatedWrites.Shortfall;
import dev.questionflow.activities.resilience.BreakerSettings;
import dev.questionflow.activities.testing.RedisProcess;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WAIT after a durable write, against a master and a replica of the test's own: acknowledged while
 * the replica is there; without it, a ticket write fails (to be repeated) only after the wait
 * timeout, which is longer than the command timeout, and an FAQ change stands with a WARN.
 */
class ReplicatedWritesTest {

  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);
  private static final Duration WAIT_TIMEOUT = Duration.ofMillis(800);

  @TempDir Path dir;
  private RedisProcess master;
  private RedisProcess replica;
  private LazyRedis redis;

  @BeforeEach
  void start() {
    // an initial sync at once (Redis 7 waits 5 s for more replicas by default)
    master = RedisProcess.start(dir.resolve("master"), "--repl-diskless-sync-delay", "0");
    replica =
        RedisProcess.start(
            dir.resolve("replica"), "--replicaof", "127.0.0.1", String.valueOf(master.port()));
    redis =
        new LazyRedis(
            RedisTopology.parse(master.url()),
            COMMAND_TIMEOUT,
            Duration.ofMillis(100),
            null,
            1,
            WAIT_TIMEOUT);
    // the replica has synced (not merely connected: WAIT counts only replicas online)
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> redis.get().info("replication").contains("state=online"));
  }

  @AfterEach
  void stop() throws Exception {
    if (redis != null) {
      redis.close();
    }
    if (replica != null) {
      replica.close();
    }
    if (master != null) {
      master.close();
    }
  }

  @Test
  void aWriteReturnsOnceTheReplicaHasIt() {
    String written =
        redis
            .replicatedWrites()
            .write(
                "cs:{tickets}:ticket:T-1",
                Shortfall.FAIL,
                r -> r.set("cs:{tickets}:ticket:T-1", "v"));
    assertThat(written).isEqualTo("OK");
  }

  @Test
  void withoutAReplicaATicketWriteFailsAfterTheWaitAndAnFaqChangeStands() throws Exception {
    replica.close();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> redis.get().info("replication").contains("connected_slaves:0"));

    long started = System.nanoTime();
    assertThatThrownBy(
            () -> redis.replicatedWrites().write("k1", Shortfall.FAIL, r -> r.set("k1", "v")))
        .isInstanceOf(NotReplicatedException.class)
        .isInstanceOf(BreakerSettings.NotADependencyFailure.class)
        .hasMessageContaining("acknowledged by 0 of 1 replicas");
    long waited = (System.nanoTime() - started) / 1_000_000;
    assertThat(waited)
        .as("WAIT ran to its own timeout, past the command timeout")
        .isGreaterThanOrEqualTo(WAIT_TIMEOUT.toMillis() - 50);
    assertThat(redis.get().get("k1")).as("written to the master all the same").isEqualTo("v");

    Long counted = redis.replicatedWrites().write("k2", Shortfall.WARN, r -> r.incr("k2"));
    assertThat(counted).as("an FAQ change stands").isEqualTo(1L);
  }

  @Test
  void withoutWaitReplicasNothingWaits() {
    try (LazyRedis plain = new LazyRedis(master.url(), COMMAND_TIMEOUT, Duration.ofMillis(100))) {
      assertThat(plain.replicatedWrites().replicas()).isZero();
      String written = plain.replicatedWrites().write("k3", Shortfall.FAIL, r -> r.set("k3", "v"));
      assertThat(written).isEqualTo("OK");
    }
  }
}
