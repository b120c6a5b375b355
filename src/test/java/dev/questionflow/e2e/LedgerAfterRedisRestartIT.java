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
 * once every workflow closed, no status read shows one of them waiting, and the ledger empties. A
 * Redis of its own, so the shared one of the other tests is left alone.
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
    model = FakeModelServer.start();
    model.script(
        call -> Reply.text("Answer to: " + call.userMessage()).after(Duration.ofSeconds(3)));
    String taskQueue = Infra.uniqueTaskQueue("ledger");
    Map<String, String> env = FlowControlIT.laneEnv(taskQueue, model, 5, 100);
    env.put("REDIS_URL", "redis://127.0.0.1:" + port);
    env.put("CS_ADAPTIVE_ENABLED", "false");
    app = AppProcess.start("ledger-restart", env);

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
    // mid-run: calls in flight, questions in line
    Thread.sleep(2_000);
    redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    Thread.sleep(1_000);
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
