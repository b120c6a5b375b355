package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.taskqueue.v1.PollerInfo;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * One {@code CS_ROLE=api} instance and two {@code CS_ROLE=worker} instances on the dev server: the
 * api instance polls no task queue, a worker serves only /actuator, and when one worker is killed
 * with -9 while model calls run on both, every question is still answered, exactly once.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the kill comes last
class RolesIT {

  private static final int QUESTIONS = 20;

  private static FakeModelServer model;
  private static AppProcess api;
  private static AppProcess workerOne;
  private static AppProcess workerTwo;
  private static WorkflowClient temporal;
  private static String taskQueue;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    // slow enough that both workers have calls in flight when one dies
    model.script(
        call -> Reply.text("Answer to: " + call.userMessage()).after(Duration.ofSeconds(4)));
    taskQueue = Infra.uniqueTaskQueue("roles");
    Map<String, String> common =
        Map.of(
            "TASK_QUEUE", taskQueue,
            "LLM_BASE_URL", model.baseUrl(),
            // twice the questions: the killed worker's places among the calls in flight stay
            // taken until their lease runs out, and the retries must not wait for them
            "LANE_PRIMARY_MAX_CONCURRENT", String.valueOf(2 * QUESTIONS),
            "LANE_PRIMARY_RATE", "50",
            // a call lost with its worker is retried once its start-to-close timeout runs out
            "CS_ACTIVITIES_GENERATION_STARTTOCLOSETIMEOUT", "8s",
            "CS_CHAIN_BUDGET", "90s",
            // every question waits for the model: this is about not losing any, not about patience
            "PATIENCE_QUEUE", "60s",
            "LLM_TIMEOUT", "60s");
    var apiStarting = AppProcess.starting("roles-api", with(common, "api"), AppProcess.TEST_JVM);
    var one = AppProcess.starting("roles-worker-1", with(common, "worker"), AppProcess.TEST_JVM);
    var two = AppProcess.starting("roles-worker-2", with(common, "worker"), AppProcess.TEST_JVM);
    api = apiStarting.join();
    workerOne = one.join();
    workerTwo = two.join();
    temporal = Infra.temporalClient();
  }

  private static Map<String, String> with(Map<String, String> common, String role) {
    Map<String, String> env = new java.util.HashMap<>(common);
    env.put("CS_ROLE", role);
    return env;
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(
        api,
        workerOne,
        workerTwo,
        model,
        temporal == null ? null : temporal.getWorkflowServiceStubs()::shutdown);
  }

  @Test
  @Order(1)
  void aWorkerServesHealthAndMetricsOnly() throws Exception {
    HttpResponse<String> asked =
        workerOne.post(
            "/api/v1/questions",
            "{\"sessionId\":\"s\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hello\"}");
    assertThat(asked.statusCode()).isEqualTo(404);
    assertThat(asked.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    assertThat(asked.body()).contains("CS_ROLE=worker");
    assertThat(workerOne.get("/actuator/health/readiness").statusCode()).isEqualTo(200);
  }

  @Test
  @Order(2)
  void theApiInstancePollsNoTaskQueue() {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              List<String> pollers = pollerIdentities();
              assertThat(pollers)
                  .as("pollers of " + taskQueue)
                  .anyMatch(id -> id.startsWith(workerOne.pid() + "@"))
                  .anyMatch(id -> id.startsWith(workerTwo.pid() + "@"))
                  .noneMatch(id -> id.startsWith(api.pid() + "@"));
            });
  }

  @Test
  @Order(3)
  void everyQuestionIsAnsweredOnceWhenAWorkerIsKilledMidCall() throws Exception {
    String batch = "roles-" + UUID.randomUUID().toString().substring(0, 8);
    List<String> workflows = new ArrayList<>();
    for (int i = 0; i < QUESTIONS; i++) {
      workflows.add(
          api.ask(batch + "-" + i, "m1", "I still have not received my new card")
              .get("workflowId")
              .asText());
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> model.calls().size() >= QUESTIONS);
    // the worker running more of the calls dies (the server spreads them as its pollers ask)
    Map<Long, Long> callsByPid = callsInFlightByWorkerPid(workflows);
    AppProcess doomed =
        callsByPid.getOrDefault(workerOne.pid(), 0L) >= callsByPid.getOrDefault(workerTwo.pid(), 0L)
            ? workerOne
            : workerTwo;
    long lost = callsByPid.getOrDefault(doomed.pid(), 0L);
    assertThat(lost).as("calls in flight on the worker to kill: " + callsByPid).isPositive();

    doomed.kill9();

    for (String workflowId : workflows) {
      JsonNode answered = api.awaitStage(workflowId, "ANSWERED", Duration.ofSeconds(120));
      assertThat(answered.at("/answer/level").asText()).isEqualTo("RAG");
    }
    int retried = 0;
    for (String workflowId : workflows) {
      List<HistoryEvent> events = temporal.fetchHistory(workflowId).getEvents();
      assertThat(events)
          .filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)
          .as("completions of " + workflowId)
          .hasSize(1);
      retried +=
          events.stream()
              .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
              .mapToInt(e -> e.getActivityTaskStartedEventAttributes().getAttempt() > 1 ? 1 : 0)
              .sum();
    }
    System.out.printf(
        "[roles] %d questions answered through one api and two workers, one killed mid-call;"
            + " %d calls in flight on it at the kill, %d activity attempts retried; %d model"
            + " calls%n",
        QUESTIONS, lost, retried, model.calls().size());
    assertThat(retried).as("calls lost with the killed worker, retried on the other").isPositive();
  }

  /** Model calls running now, by the process ID of the worker running each (its identity). */
  private static Map<Long, Long> callsInFlightByWorkerPid(List<String> workflows) {
    Map<Long, Long> byPid = new java.util.HashMap<>();
    for (String workflowId : workflows) {
      for (PendingActivityInfo pending :
          temporal
              .getWorkflowServiceStubs()
              .blockingStub()
              .describeWorkflowExecution(
                  DescribeWorkflowExecutionRequest.newBuilder()
                      .setNamespace(Infra.namespace())
                      .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                      .build())
              .getPendingActivitiesList()) {
        String identity = pending.getLastWorkerIdentity();
        if ("GenerateAnswer".equals(pending.getActivityType().getName())
            && identity.contains("@")) {
          byPid.merge(Long.parseLong(identity.substring(0, identity.indexOf('@'))), 1L, Long::sum);
        }
      }
    }
    return byPid;
  }

  private static List<String> pollerIdentities() {
    List<String> identities = new ArrayList<>();
    for (TaskQueueType type :
        List.of(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)) {
      for (PollerInfo poller :
          temporal
              .getWorkflowServiceStubs()
              .blockingStub()
              .describeTaskQueue(
                  DescribeTaskQueueRequest.newBuilder()
                      .setNamespace(Infra.namespace())
                      .setTaskQueue(TaskQueue.newBuilder().setName(taskQueue))
                      .setTaskQueueType(type)
                      .build())
              .getPollersList()) {
        identities.add(poller.getIdentity());
      }
    }
    return identities;
  }
}
