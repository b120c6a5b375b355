package dev.questionflow.e2e;

import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of a test's own (its own port and folder), so the Redis the other tests share is
 * left alone when this one is stopped or killed.
 */
final class RedisServer {

  private RedisServer() {}

  /**
   * Starts one on {@code port} with its files in {@code dir} and waits until it answers; {@code
   * appendOnly}: an append-only file fsynced every second (what survives a kill -9), else nothing
   * is kept.
   */
  static Process start(int port, Path dir, boolean appendOnly) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                "redis-server",
                "--port",
                String.valueOf(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--dir",
                dir.toString()));
    command.addAll(
        appendOnly
            ? List.of("--appendonly", "yes", "--appendfsync", "everysec")
            : List.of("--appendonly", "no"));
    Process redis =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
            .start();
    RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .until(
              () -> {
                try (StatefulRedisConnection<String, String> c = client.connect()) {
                  return "PONG".equals(c.sync().ping());
                }
              });
    } finally {
      client.shutdown();
    }
    return redis;
  }

  static void stop(Process redis) throws InterruptedException {
    if (redis != null && redis.isAlive()) {
      redis.destroy();
      redis.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
