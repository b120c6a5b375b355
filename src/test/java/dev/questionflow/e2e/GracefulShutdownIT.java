package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.util.Timestamps;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM to a worker with 20 model calls in flight: it stops taking tasks, lets the calls finish
 * and report within {@code CS_SHUTDOWN_GRACE}, then exits; the other instance carries every
 * question on. Each question completes once, with one model call: no start-to-close timeout, no
 * retry, no duplicate call.
 */
class GracefulShutdownIT {

  private static final int QUESTIONS = 20;
  private static final Duration LATENCY = Duration.ofSeconds(8);
  private static final Duration GRACE = Duration.ofSeconds(30);

  private static FakeModelServer model;
  private static AppProcess stopping;
  private static AppProcess staying;
  private static WorkflowClient temporal;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.script(call -> Reply.text("Answer to: " + call.userMessage()).after(LATENCY));
    Map<String, String> env = new HashMap<>();
    env.put("TASK_QUEUE", Infra.uniqueTaskQueue("shutdown"));
    env.put("LLM_BASE_URL", model.baseUrl());
    env.put("LANE_PRIMARY_MAX_CONCURRENT", String.valueOf(QUESTIONS));
    env.put("LANE_PRIMARY_RATE", "50");
    env.put("CS_CHAIN_BUDGET", "90s");
    env.put("PATIENCE_QUEUE", "60s");
    env.put("LLM_TIMEOUT", "60s");
    env.put("CS_SHUTDOWN_GRACE", GRACE.toSeconds() + "s");
    // the instance that stays runs no worker of the model's lane: every call runs on the one
    // that is stopped, and the one that stays takes over the questions' workflow tasks
    Map<String, String> elsewhere = new HashMap<>(env);
    elsewhere.put("CS_LANES_PRIMARY_TASKQUEUE", env.get("TASK_QUEUE") + "-unused-lane");
    var one = AppProcess.starting("shutdown-stopping", env, AppProcess.TEST_JVM);
    var two = AppProcess.starting("shutdown-staying", elsewhere, AppProcess.TEST_JVM);
    stopping = one.join();
    staying = two.join();
    temporal = Infra.temporalClient();
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(
        stopping,
        staying,
        model,
        temporal == null ? null : temporal.getWorkflowServiceStubs()::shutdown);
  }

  @Test
  void sigtermLetsTheModelCallsInFlightFinishAndEveryQuestionCompletesOnce() throws Exception {
    String batch = "shutdown-" + UUID.randomUUID().toString().substring(0, 8);
    List<String> workflows = new ArrayList<>();
    for (int i = 0; i < QUESTIONS; i++) {
      workflows.add(
          stopping
              .ask(batch + "-" + i, "m1", "I still have not received my new card")
              .get("workflowId")
              .asText());
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> model.calls().size() >= QUESTIONS);
    long lastCallAt = System.nanoTime();
    long sigtermAtMillis = System.currentTimeMillis();

    Duration exited = stopping.terminate(GRACE.plusSeconds(15));
    double afterLastCall = (System.nanoTime() - lastCallAt) / 1e9;

    assertThat(exited).as("exited within the grace").isNotNull();
    assertThat(exited).isLessThan(GRACE.plusSeconds(5));
    long answeredBy = System.nanoTime();
    for (String workflowId : workflows) {
      JsonNode answered = staying.awaitStage(workflowId, "ANSWERED", Duration.ofSeconds(60));
      assertThat(answered.at("/answer/level").asText()).isEqualTo("RAG");
    }
    double allAnswered = (System.nanoTime() - answeredBy) / 1e9;
    int retriedBeforeSigterm = 0;
    for (String workflowId : workflows) {
      List<HistoryEvent> events = temporal.fetchHistory(workflowId).getEvents();
      assertThat(events)
          .filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)
          .hasSize(1);
      assertThat(events)
          .filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT)
          .as("timed-out activities of " + workflowId)
          .isEmpty();
      // A retry whose attempt started before the SIGTERM is not the drain's doing (a loaded machine
      // can take longer than EnterLane's 3 s); after it, none may start: every attempt in flight
      // finished on the stopping instance.
      List<HistoryEvent> retried =
          events.stream()
              .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
              .filter(e -> e.getActivityTaskStartedEventAttributes().getAttempt() > 1)
              .toList();
      retriedBeforeSigterm += retried.size();
      assertThat(retried)
          .as("activity attempts of " + workflowId + " retried after the SIGTERM")
          .allSatisfy(
              e -> assertThat(Timestamps.toMillis(e.getEventTime())).isLessThan(sigtermAtMillis));
    }
    assertThat(model.calls()).as("one model call per question").hasSize(QUESTIONS);
    String log = Files.readString(Infra.workDir().resolve("shutdown-stopping.log"));
    assertThat(log).contains("workers drained in");
    System.out.printf(
        "[shutdown] SIGTERM with %d model calls of %d s in flight: the instance exited after %.1f s"
            + " (%.1f s after the last call started); every question answered %.1f s later, once,"
            + " with one call each, no timeout, no retry after the SIGTERM (%d before it)%n",
        QUESTIONS,
        LATENCY.toSeconds(),
        exited.toMillis() / 1000.0,
        afterLastCall,
        allAnswered,
        retriedBeforeSigterm);
  }
}
