package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.WorkflowTaskCompletedEventAttributes;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A rollout under Worker Deployment versioning on the dev server: an api instance and build b1's
 * worker answer questions; build b2's worker starts and is made current while b1's questions are in
 * their model calls. Those finish on b1, every workflow task of theirs; the questions asked after
 * the switch run on b2 alone. Both builds share the unversioned model lane: one line and one rate
 * limit.
 */
class RolloutIT {

  private static final int PER_BUILD = 5;
  private static final double LANE_RATE = 4;
  private static final String UNANSWERABLE = "airspeed velocity of an unladen swallow";

  private static FakeModelServer model;
  private static AppProcess api;
  private static AppProcess b1;
  private static AppProcess b2;
  private static WorkflowClient temporal;
  private static String deployment;
  private static final Map<String, String> ENV = new HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    // slow enough that b1's questions are inside their model calls when b2 becomes current
    model.script(
        call ->
            call.userMessage().contains(UNANSWERABLE)
                // refused: no model answer and no FAQ match, so the question goes to a person
                ? Reply.error(400)
                : Reply.text("Answer to: " + call.userMessage()).after(Duration.ofSeconds(6)));
    deployment = "rollout-" + UUID.randomUUID().toString().substring(0, 8);
    ENV.put("TASK_QUEUE", Infra.uniqueTaskQueue("rollout"));
    ENV.put("LLM_BASE_URL", model.baseUrl());
    ENV.put("TEMPORAL_DEPLOYMENT_NAME", deployment);
    ENV.put("LANE_PRIMARY_RATE", String.valueOf((int) LANE_RATE));
    ENV.put("LANE_PRIMARY_MAX_CONCURRENT", String.valueOf(4 * PER_BUILD));
    // this is about where questions run, not their deadlines: every one waits for the model
    ENV.put("PATIENCE_QUEUE", "60s");
    ENV.put("CS_CHAIN_BUDGET", "90s");
    ENV.put("LLM_TIMEOUT", "60s");
    api = AppProcess.start("rollout-api", with("CS_ROLE", "api"));
    b1 = AppProcess.start("rollout-b1", with("CS_ROLE", "worker", "TEMPORAL_BUILD_ID", "b1"));
    temporal = Infra.temporalClient();
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(
        api, b1, b2, model, temporal == null ? null : temporal.getWorkflowServiceStubs()::shutdown);
  }

  @Test
  void questionsInFlightFinishOnTheirBuildWhileNewOnesStartOnTheNext() throws Exception {
    makeCurrent("b1");
    String batch = "rollout-" + UUID.randomUUID().toString().substring(0, 8);
    // one question nothing answers: handed over to a person on b1, it waits for the reply
    String handedOver =
        api.ask(batch + "-ticket", "m1", "What is the " + UNANSWERABLE + "?")
            .get("workflowId")
            .asText();
    List<String> onB1 = ask(batch + "-b1");
    await().atMost(Duration.ofSeconds(60)).until(() -> answerCalls() >= PER_BUILD);
    String ticketId =
        api.awaitStage(handedOver, "TICKETED", Duration.ofSeconds(60))
            .at("/answer/ticketId")
            .asText();

    b2 = AppProcess.start("rollout-b2", with("CS_ROLE", "worker", "TEMPORAL_BUILD_ID", "b2"));
    makeCurrent("b2");
    long callsBeforeB2 = answerCalls();
    List<String> onB2 = ask(batch + "-b2");

    List<String> all = new ArrayList<>(onB1);
    all.addAll(onB2);
    for (String workflowId : all) {
      JsonNode answered = api.awaitStage(workflowId, "ANSWERED", Duration.ofSeconds(120));
      assertThat(answered.at("/answer/level").asText())
          .as("level of %s (reason: %s)", workflowId, answered.at("/answer/reason"))
          .isEqualTo("RAG");
    }
    Map<String, Set<String>> builds = new HashMap<>();
    for (String workflowId : all) {
      List<HistoryEvent> events = temporal.fetchHistory(workflowId).getEvents();
      builds.put(workflowId, buildsOf(events));
      assertThat(events)
          .filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)
          .as("completions of " + workflowId)
          .hasSize(1);
    }
    System.out.printf(
        "[rollout] %d questions in their model calls when b2 became current (%d calls made);"
            + " builds of their workflow tasks: %s; asked after the switch: %s%n",
        onB1.size(),
        callsBeforeB2,
        onB1.stream().map(builds::get).toList(),
        onB2.stream().map(builds::get).toList());
    assertThat(onB1)
        .as("asked while b1 was current: every workflow task on b1")
        .allSatisfy(id -> assertThat(builds.get(id)).containsExactly("b1"));
    assertThat(onB2)
        .as("asked once b2 was current: every workflow task on b2")
        .allSatisfy(id -> assertThat(builds.get(id)).containsExactly("b2"));
    assertThat(answerCalls()).as("one model call per question").isEqualTo(all.size());
    assertTheLaneRateHeldAcrossBuilds();

    // b1 leaves once its questions are done: the one waiting for a person does not keep it
    b1.close();
    assertThat(
            api.post("/api/v1/tickets/" + ticketId + "/reply", "{\"text\":\"About 11 m/s.\"}")
                .statusCode())
        .isEqualTo(202);
    JsonNode replied = api.awaitStage(handedOver, "ANSWERED", Duration.ofSeconds(60));
    assertThat(replied.at("/answer/level").asText()).isEqualTo("HUMAN");
    List<HistoryEvent> wait = temporal.fetchHistory(handedOver).getEvents();
    assertThat(wait.get(0).getWorkflowExecutionStartedEventAttributes().getWorkflowType().getName())
        .isEqualTo("TicketReplyWorkflow");
    System.out.printf(
        "[rollout] the handed-over question: its question run on %s, its wait for a person on %s;"
            + " answered by a person with b1 stopped%n",
        buildsOf(
            temporal
                .fetchHistory(
                    handedOver,
                    wait.get(0)
                        .getWorkflowExecutionStartedEventAttributes()
                        .getContinuedExecutionRunId())
                .getEvents()),
        buildsOf(wait));
    assertThat(buildsOf(wait))
        .as("the wait for a person runs on its own queue, unversioned: it holds no build")
        .containsExactly("unversioned");
  }

  /**
   * Both builds poll the same unversioned lane queue, so its server-side rate limit is one for
   * both: the model never saw more calls in a second than the lane's limit allows.
   */
  private static void assertTheLaneRateHeldAcrossBuilds() {
    List<Long> starts = model.calls().stream().map(FakeModelServer.Call::receivedNanos).toList();
    int busiest = 0;
    for (long from : starts) {
      long to = from + 1_000_000_000L;
      busiest = Math.max(busiest, (int) starts.stream().filter(t -> t >= from && t < to).count());
    }
    System.out.printf(
        "[rollout] the model's busiest second: %d calls (lane rate %.0f/s)%n", busiest, LANE_RATE);
    // the server's limit is 1.2 x the rate (LaneRates) with a burst of one second's worth
    assertThat(busiest).isLessThanOrEqualTo((int) Math.ceil(2 * 1.2 * LANE_RATE));
  }

  /** The model calls of the questions it answers (the unanswerable one's is refused). */
  private static long answerCalls() {
    return model.calls().stream().filter(c -> !c.userMessage().contains(UNANSWERABLE)).count();
  }

  private static List<String> ask(String prefix) throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < PER_BUILD; i++) {
      ids.add(
          api.ask(prefix + "-" + i, "m1", "I still have not received my new card")
              .get("workflowId")
              .asText());
    }
    return ids;
  }

  /** The build IDs that completed the workflow's tasks, as the server recorded them. */
  private static Set<String> buildsOf(List<HistoryEvent> events) {
    Set<String> builds = new TreeSet<>();
    for (HistoryEvent e : events) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        WorkflowTaskCompletedEventAttributes task = e.getWorkflowTaskCompletedEventAttributes();
        builds.add(
            task.hasDeploymentVersion() ? task.getDeploymentVersion().getBuildId() : "unversioned");
      }
    }
    return builds;
  }

  /** set-current-version, once the build's worker polls (the server refuses a version without). */
  private static void makeCurrent(String buildId) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .ignoreExceptionsInstanceOf(AssertionError.class)
        .until(
            () -> {
              Infra.runCli(
                  "worker",
                  "deployment",
                  "set-current-version",
                  "--deployment-name",
                  deployment,
                  "--build-id",
                  buildId,
                  "--yes");
              return true;
            });
  }

  private static Map<String, String> with(String... pairs) {
    Map<String, String> env = new HashMap<>(ENV);
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }
}
