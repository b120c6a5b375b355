package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Redis down, on the packaged app with a real redis-server of its own (its own port, so the shared
 * one of the other tests is left alone): the app starts about as fast as with Redis, answers at a
 * lower level, and says in its readiness probe what is down; when Redis comes back its stores use
 * it again, without a restart.
 */
class RedisOutageIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private Process redis;
  private AppProcess app;

  @AfterEach
  void stop() throws Exception {
    Infra.closeAll(app);
    stopRedis();
  }

  private void startRedis(int port) throws Exception {
    redis =
        RedisServer.start(
            port, Files.createDirectories(Infra.workDir().resolve("redis-outage")), false);
  }

  private void stopRedis() throws Exception {
    RedisServer.stop(redis);
  }

  private Map<String, String> env(int redisPort, String queue) {
    Map<String, String> env = new HashMap<>();
    env.put("TASK_QUEUE", queue);
    env.put("REDIS_URL", "redis://127.0.0.1:" + redisPort);
    return env;
  }

  private JsonNode readiness() throws Exception {
    return JSON.readTree(app.get("/actuator/health/readiness").body());
  }

  /** Starts the app and returns how long it took to be healthy, in milliseconds. */
  private long start(String name, Map<String, String> env) throws Exception {
    long started = System.nanoTime();
    app = AppProcess.start(name, env);
    return (System.nanoTime() - started) / 1_000_000;
  }

  @Test
  void withRedisDownTheAppStartsAnswersAndSaysSoAndUsesRedisAgainOnceItIsBack() throws Exception {
    int port = AppProcess.freePort();
    startRedis(port);
    long withRedis = start("redis-up", env(port, Infra.uniqueTaskQueue("redis-up")));
    app.close();
    stopRedis();

    long withoutRedis = start("redis-down", env(port, Infra.uniqueTaskQueue("redis-down")));
    // a Lettuce default (connect at start, 60 s timeouts) would make this a minute or more
    assertThat(withoutRedis)
        .as("start with Redis down vs. up: %d ms vs. %d ms", withoutRedis, withRedis)
        .isLessThan(2 * withRedis + 10_000);

    String session = "outage-" + UUID.randomUUID();
    JsonNode answered =
        app.awaitStage(
            app.ask(session, "m1", "I still have not received my new card")
                .get("workflowId")
                .asText(),
            "ANSWERED",
            Duration.ofSeconds(60));
    assertThat(answered.at("/answer/level").asText()).isIn("FAQ", "KEYWORD");
    assertThat(answered.at("/answer/reason").asText()).as("why not a model's answer").isNotBlank();

    var probe = app.get("/actuator/health/readiness");
    JsonNode down = JSON.readTree(probe.body());
    assertThat(probe.statusCode()).as("still in rotation: it answers").isEqualTo(200);
    assertThat(down.path("status").asText()).isEqualTo("DEGRADED");
    assertThat(down.at("/components/redis/status").asText()).isEqualTo("DEGRADED");
    assertThat(down.at("/components/redis/details/error").asText()).isNotBlank();
    assertThat(Files.readString(app.log())).contains("is not reachable");

    startRedis(port);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(() -> assertThat(readiness().path("status").asText()).isEqualTo("UP"));
    // a new session's keys land in Redis again (once the redis breaker, if the outage opened it,
    // lets calls through)
    RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
    long back = System.nanoTime();
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                String later = "back-" + UUID.randomUUID();
                app.awaitStage(
                    app.ask(later, "m1", "I still have not received my new card")
                        .get("workflowId")
                        .asText(),
                    "ANSWERED",
                    Duration.ofSeconds(60));
                assertThat(c.sync().keys("cs:session:*" + later + "*"))
                    .as("the session's keys, in Redis again")
                    .isNotEmpty();
              });
    } finally {
      client.shutdown();
    }
    long backMillis = (System.nanoTime() - back) / 1_000_000;
    System.out.printf(
        "[redis-outage] start with Redis %d ms, without %d ms; answered at %s (%s) while down;"
            + " readiness %s while down; sessions in Redis again %d ms after it was UP%n",
        withRedis,
        withoutRedis,
        answered.at("/answer/level").asText(),
        answered.at("/answer/reason").asText(),
        down.path("status").asText(),
        backMillis);
  }
}
