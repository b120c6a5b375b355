package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.faq.FaqEntry;
import dev.questionflow.faq.FaqPacks;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lane ledger is a cache, Temporal is the truth: 40 questions in flight at a 3 s model, the
 * app's Redis (append-only file, fsync every second) killed with -9 and started again on the same
 * files. Removals of the last second are lost and entries of questions that finished come back;
 * once every workflow closed, no status read shows one of them waiting, and the ledger empties. The
 * same for the published statuses when Redis comes back from an older snapshot. A Redis of its own,
 * so the shared one of the other tests is left alone.
 */
class LedgerAfterRedisRestartIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final io.temporal.client.WorkflowClient temporal = Infra.temporalClient();
  private FakeModelServer model;
  private AppProcess app;
  private Process redis;

  @AfterEach
  void stop() throws Exception {
    Infra.closeAll(app, model);
    temporal.getWorkflowServiceStubs().shutdown();
    RedisServer.stop(redis);
  }

  @Test
  void aRestartedRedisNeverShowsAFinishedQuestionAsWaiting() throws Exception {
    int port = AppProcess.freePort();
    Path dir = Files.createDirectories(Infra.workDir().resolve("ledger-restart-" + port));
    redis = RedisServer.start(port, dir, true);
    String taskQueue = startApp(port, "ledger-restart");
    List<String> ids = askForty();
    // mid-run: calls in flight, questions in line
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> !model.calls().isEmpty() && ledgerSize(port, taskQueue)[0] > 0);
    redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    Thread.sleep(1_000); // an outage of a second, not a wait for something to happen
    redis = RedisServer.start(port, dir, true);
    long[] afterRestart = ledgerSize(port, taskQueue);
    System.out.printf(
        "[ledger] restarted from the append-only file: %d waiting, %d started in the ledger%n",
        afterRestart[0], afterRestart[1]);

    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> ids.stream().allMatch(this::closed));
    String lane = "cs:lane:{" + taskQueue + "-model-primary}:";
    List<String> shownWaiting = new ArrayList<>();
    for (String id : ids) {
      JsonNode status = app.status(id);
      if ("WAITING_IN_QUEUE".equals(status.path("stage").asText())) {
        shownWaiting.add(id);
      }
    }
    RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      System.out.printf(
          "[ledger] after the restart and all 40 closed: %d shown waiting; ledger waiting %d,"
              + " enqueued %d%n",
          shownWaiting.size(), c.sync().zcard(lane + "waiting"), c.sync().zcard(lane + "enqueued"));
      assertThat(shownWaiting).as("finished questions shown as waiting").isEmpty();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                assertThat(c.sync().zcard(lane + "waiting")).isZero();
                assertThat(c.sync().zcard(lane + "enqueued")).isZero();
              });
    } finally {
      client.shutdown();
    }
  }

  /**
   * A Redis that comes back stale (a failover to a replica that lagged, a restore from a backup): a
   * snapshot taken while questions were in flight, the app's Redis killed once all of them
   * finished, and started again from that snapshot, whose keys say PROCESSING or WAITING for
   * questions that were answered since. No status read and no event stream shows one of them
   * unfinished: a status published before the store's new life is checked against the workflow.
   */
  @Test
  void aRedisThatComesBackStaleNeverShowsAFinishedQuestionAsUnfinished() throws Exception {
    int port = AppProcess.freePort();
    Path dir = Files.createDirectories(Infra.workDir().resolve("status-stale-" + port));
    Path snapshot = Files.createDirectories(dir.resolve("snapshot"));
    redis = RedisServer.start(port, dir, false);
    startApp(port, "status-stale");
    List<String> ids = askForty();

    List<String> unfinished = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              // published by the worker (the API's RECEIVED is not taken for long anyway)
              unfinished.clear();
              for (String id : ids) {
                String stage = app.status(id).path("stage").asText();
                if (stage.equals("PROCESSING") || stage.equals("WAITING_IN_QUEUE")) {
                  unfinished.add(id);
                }
              }
              return unfinished.size() >= 8;
            });
    RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      c.sync().save();
    } finally {
      client.shutdown();
    }
    Files.copy(dir.resolve("dump.rdb"), snapshot.resolve("dump.rdb"));
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> ids.stream().allMatch(this::closed));
    redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    redis = RedisServer.start(port, snapshot, false);

    List<String> shownUnfinished = new ArrayList<>();
    for (String id : ids) {
      if (!finished(app.status(id))) {
        shownUnfinished.add(id);
      }
    }
    List<String> streamedUnfinished = new ArrayList<>();
    for (String id : unfinished) {
      // a stream ends with its question's final status; one still open after 10 s shows it
      // unfinished
      List<AppProcess.Event> statuses;
      try {
        statuses =
            CompletableFuture.supplyAsync(() -> eventsOf(id)).get(10, TimeUnit.SECONDS).stream()
                .filter(e -> "status".equals(e.name()))
                .toList();
      } catch (java.util.concurrent.TimeoutException e) {
        statuses = List.of();
      }
      if (statuses.isEmpty()
          || !finished(JSON.readTree(statuses.get(statuses.size() - 1).data()))) {
        streamedUnfinished.add(id);
      }
    }
    System.out.printf(
        "[stale] Redis back from a snapshot with %d of 40 questions processing or waiting, all 40"
            + " closed:"
            + " %d shown unfinished by a status read, %d by an event stream%n",
        unfinished.size(), shownUnfinished.size(), streamedUnfinished.size());
    assertThat(shownUnfinished).as("finished questions read as unfinished").isEmpty();
    assertThat(streamedUnfinished).as("finished questions streamed as unfinished").isEmpty();
  }

  /** The app on the Redis at {@code port}, a 3 s model at 5 calls/s; returns its task queue. */
  private String startApp(int port, String name) throws Exception {
    model = FakeModelServer.start();
    model.script(
        call -> Reply.text("Answer to: " + call.userMessage()).after(Duration.ofSeconds(3)));
    String taskQueue = Infra.uniqueTaskQueue("ledger");
    Map<String, String> env = FlowControlIT.laneEnv(taskQueue, model, 5, 100);
    env.put("REDIS_URL", "redis://127.0.0.1:" + port);
    env.put("CS_ADAPTIVE_ENABLED", "false");
    app = AppProcess.start(name, env);
    return taskQueue;
  }

  /** 40 questions asked at once (8 at a time); their workflow IDs. */
  private List<String> askForty() {
    List<String> texts = new ArrayList<>();
    List<FaqEntry> entries = FaqPacks.loadFromClasspath("banking77").entries();
    String run = UUID.randomUUID().toString().substring(0, 6);
    for (int i = 0; i < 40; i++) {
      texts.add(entries.get(i).question() + " #" + i + " (" + run + ")");
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<CompletableFuture<String>> asked = new ArrayList<>();
    for (String text : texts) {
      asked.add(CompletableFuture.supplyAsync(() -> ask(text), pool));
    }
    List<String> ids = asked.stream().map(CompletableFuture::join).toList();
    pool.shutdown();
    return ids;
  }

  /** Answered for good or failed: what a closed question's status is. */
  private static boolean finished(JsonNode status) {
    String stage = status.path("stage").asText();
    return "FAILED".equals(stage)
        || "ANSWERED".equals(stage) && !status.path("upgrading").asBoolean(false);
  }

  private List<AppProcess.Event> eventsOf(String workflowId) {
    try {
      return app.events(workflowId, Duration.ofSeconds(30));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The primary lane's waiting and started entries now. */
  private static long[] ledgerSize(int port, String taskQueue) {
    RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      String lane = "cs:lane:{" + taskQueue + "-model-primary}:";
      return new long[] {c.sync().zcard(lane + "waiting"), c.sync().zcard(lane + "started")};
    } finally {
      client.shutdown();
    }
  }

  private String ask(String text) {
    Map<String, Object> body = new HashMap<>();
    String session = "lr-" + UUID.randomUUID().toString().substring(0, 8);
    body.put("sessionId", session);
    body.put("userId", "user-" + session);
    body.put("clientMsgId", "m1");
    body.put("text", text);
    try {
      var response = app.post("/api/v1/questions", JSON.writeValueAsString(body));
      assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
      return JSON.readTree(response.body()).get("workflowId").asText();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether Temporal has the question's workflow closed (the truth the status must agree with). */
  private boolean closed(String workflowId) {
    return temporal.newUntypedWorkflowStub(workflowId).describe().getStatus()
        != io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  }
}
