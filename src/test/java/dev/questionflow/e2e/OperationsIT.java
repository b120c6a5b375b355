package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What support staff and engineers do, against the dev server: find a waiting question in the
 * Temporal Web UI by {@code Stage="WAITING_IN_QUEUE"} (a real browser) and read its position in the
 * current details; list it through the admin API; export a finished question's history and replay
 * it with {@code bin/replay}; re-run a question; redrive a dead-letter ticket exactly once.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperationsIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY = "ops-test-key-0123456789abcdef0123456789";
  private static final String IN_FAQ = "I still have not received my new card";

  /**
   * The fake model refuses these (400, not retried): with no FAQ match either, they become tickets.
   */
  private static final String TICKET_TEXT =
      "Can you recommend a good pizza place near the harbour?";

  private static FakeModelServer model;
  private static LadderIT.Helpdesk helpdesk;
  private static AppProcess app;
  private static WorkflowClient temporal;
  private static final List<String> answered = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    // slow calls on a lane of one call at a time: a backlog builds and the last questions wait with
    // a position
    model.script(
        call ->
            call.userMessage().contains("pizza")
                ? Reply.error(400)
                : Reply.text("Your new card is on its way.").after(Duration.ofMillis(2500)));
    helpdesk = LadderIT.Helpdesk.start();
    Map<String, String> env = FlowControlIT.laneEnv(Infra.uniqueTaskQueue("ops"), model, 1, 1);
    env.put("LLM_API_KEY", "test-key");
    // the backlog's questions wait up to a minute with a position (the subject of the first test):
    // with the default patience of 10 s they would be answered from the FAQ at once
    env.put("PATIENCE_QUEUE", "60s");
    env.put("ADMIN_API_KEY", KEY);
    env.put("HELPDESK_WEBHOOK_URL", helpdesk.url());
    env.put("HELPDESK_WEBHOOK_SECRET", LadderIT.Helpdesk.SECRET);
    // only a redrive can deliver a dead letter within this test
    env.put("CS_DEAD_LETTER_INITIAL_BACKOFF", "10m");
    env.put("CS_DEAD_LETTER_MAX_BACKOFF", "10m");
    app = AppProcess.start("ops", env);
    temporal = Infra.temporalClient();
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(
        app,
        model,
        helpdesk == null ? null : () -> helpdesk.server.stop(0),
        temporal == null ? null : () -> temporal.getWorkflowServiceStubs().shutdownNow());
  }

  private static HttpResponse<String> admin(String method, String path) throws Exception {
    return app.send(method, "/api/v1/admin" + path, null, "X-Api-Key", KEY);
  }

  @Test
  @Order(1)
  void aWaitingQuestionIsFoundInTheWebUiByItsStageAndItsDetailsShowThePosition() throws Exception {
    String run = Long.toString(System.nanoTime(), 36);
    for (int i = 0; i < 14; i++) {
      answered.add(app.ask("ops-" + run + "-" + i, "m1", IN_FAQ).get("workflowId").asText());
    }
    // the one furthest back (the server's order, not the order of submission): at 2.5 s a call, one
    // at a time, a
    // question with 8 ahead waits 20 s more, time enough for the checks below
    AtomicReference<String> furthestBack = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              int most = -1;
              for (String id : answered) {
                JsonNode status = app.status(id);
                if ("WAITING_IN_QUEUE".equals(status.path("stage").asText())
                    && status.path("queuePosition").asInt() > most) {
                  most = status.path("queuePosition").asInt();
                  furthestBack.set(id);
                }
              }
              return most >= 8;
            });
    String waiting = furthestBack.get();

    // what a person reads in the Web UI's "Current Details" (the SDK's metadata query, as the UI
    // uses it)
    String details =
        temporal
            .newUntypedWorkflowStub(waiting)
            .query("__temporal_workflow_metadata", WorkflowMetadata.class)
            .getCurrentDetails();
    System.out.printf("[ops] current details of %s: %s%n", waiting, details);
    assertThat(details).matches("waiting for model lane \\S+, position \\d+, about \\d+ s");

    // the admin API lists it as waiting
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              HttpResponse<String> stuck =
                  admin("GET", "/questions/stuck?olderThanSeconds=0&stage=WAITING_IN_QUEUE");
              assertThat(stuck.statusCode()).as(stuck.body()).isEqualTo(200);
              assertThat(JSON.readTree(stuck.body()).findValuesAsText("workflowId"))
                  .contains(waiting);
            });

    // a real browser finds it in the Temporal Web UI with the saved query of the runbook
    Browser.Result ui =
        Browser.temporalUi(
            "http://" + Infra.temporalUiAddress(),
            Infra.namespace(),
            "Stage=\"WAITING_IN_QUEUE\"",
            waiting,
            Browser.screenshotDir().resolve("web-ui-waiting-in-queue.png"),
            "/position \\d+/",
            app,
            Duration.ofSeconds(30));
    assertThat(ui.exitCode()).as(ui.stdout() + ui.stderr()).isZero();
    assertThat(ui.json().path("listed").asBoolean()).isTrue();
    // UI 2.42 (the dev server's) shows them on the workflow's "User Metadata" tab
    assertThat(ui.json().path("detailsTextFound").asBoolean()).as(ui.json().toString()).isTrue();
    assertThat(Browser.screenshotDir().resolve("web-ui-waiting-in-queue.png")).exists();
    System.out.printf("[ops] Web UI: %s%n", ui.json());
  }

  @Test
  @Order(2)
  void anExportedHistoryReplaysWithBinReplayAndSoDoesOneFetchedById() throws Exception {
    String workflowId = answered.get(0);
    app.awaitStage(workflowId, "ANSWERED", Duration.ofSeconds(90));

    HttpResponse<String> refused =
        app.send("GET", "/api/v1/admin/questions/" + workflowId + "/history", null);
    assertThat(refused.statusCode()).isEqualTo(401);
    HttpResponse<String> exported = admin("GET", "/questions/" + workflowId + "/history");
    assertThat(exported.statusCode()).isEqualTo(200);
    Path file = Infra.workDir().resolve(workflowId + ".json");
    Files.writeString(file, exported.body());

    Replay fromFile = replay("--file", file.toString());
    Replay byId = replay(workflowId);

    System.out.printf(
        "[ops] bin/replay --file: %s[ops] bin/replay %s: %s",
        fromFile.output(), workflowId, byId.output());
    assertThat(fromFile.exit()).as(fromFile.output()).isZero();
    assertThat(fromFile.output()).contains("OK " + workflowId + " (QuestionWorkflow");
    assertThat(byId.exit()).as(byId.output()).isZero();
    assertThat(byId.output())
        .containsPattern("OK " + workflowId + " \\(run [0-9a-f-]{36}, QuestionWorkflow");
  }

  @Test
  @Order(3)
  void aQuestionIsReRunFromItsStartUnderTheSameWorkflowId() throws Exception {
    String workflowId = answered.get(1);
    app.awaitStage(workflowId, "ANSWERED", Duration.ofSeconds(90));
    String before =
        temporal.newUntypedWorkflowStub(workflowId).describe().getExecution().getRunId();

    HttpResponse<String> rerun =
        app.send(
            "POST",
            "/api/v1/admin/questions/" + workflowId + "/rerun?from=START",
            "{\"reason\":\"ops test\"}",
            "X-Api-Key",
            KEY);

    assertThat(rerun.statusCode()).as(rerun.body()).isEqualTo(202);
    JsonNode body = JSON.readTree(rerun.body());
    assertThat(body.get("previousRunId").asText()).isEqualTo(before);
    String after = body.get("runId").asText();
    assertThat(after).isNotEqualTo(before);
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              var run = temporal.newUntypedWorkflowStub(workflowId).describe();
              assertThat(run.getExecution().getRunId()).isEqualTo(after);
              assertThat(run.getStatus().name()).isEqualTo("WORKFLOW_EXECUTION_STATUS_COMPLETED");
            });
    assertThat(app.status(workflowId).path("stage").asText()).isEqualTo("ANSWERED");
  }

  @Test
  @Order(4)
  void aDeadLetterTicketIsRedrivenAndDeliveredExactlyOnce() throws Exception {
    helpdesk.down.set(true);
    String workflowId =
        app.ask("ops-dl-" + System.nanoTime(), "m1", TICKET_TEXT).get("workflowId").asText();
    String ticketId =
        app.awaitStage(workflowId, "TICKETED", Duration.ofSeconds(60))
            .at("/answer/ticketId")
            .asText();

    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              HttpResponse<String> list = admin("GET", "/dead-letters");
              assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
              JsonNode entry = null;
              for (JsonNode node : JSON.readTree(list.body())) {
                if (ticketId.equals(node.path("ticketId").asText())) {
                  entry = node;
                }
              }
              assertThat(entry).as("dead letter of " + ticketId + " in " + list.body()).isNotNull();
              assertThat(entry.at("/status/delivered").asBoolean()).isFalse();
              assertThat(entry.at("/status/attempts").asInt()).isPositive();
            });
    assertThat(helpdesk.accepted).doesNotContainKey(ticketId);

    helpdesk.down.set(false);
    long redriven = System.nanoTime();
    assertThat(
            app.send("POST", "/api/v1/admin/dead-letters/" + ticketId + "/redrive", null)
                .statusCode())
        .as("no key")
        .isEqualTo(401);
    HttpResponse<String> redrive = admin("POST", "/dead-letters/" + ticketId + "/redrive");
    assertThat(redrive.statusCode()).as(redrive.body()).isEqualTo(202);

    // the backoff is 10 min: only the redrive can have delivered it; count once the workflow has
    // completed
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () ->
                assertThat(
                        Infra.temporalJson(
                                "workflow", "describe", "--workflow-id", "dead-letter-" + ticketId)
                            .at("/workflowExecutionInfo/status")
                            .asText())
                    .isEqualTo("WORKFLOW_EXECUTION_STATUS_COMPLETED"));
    System.out.printf(
        "[ops] dead letter %s delivered %.1f s after the redrive%n",
        ticketId, (System.nanoTime() - redriven) / 1e9);
    assertThat(helpdesk.accepted.get(ticketId).get()).isEqualTo(1);
    HttpResponse<String> again = admin("POST", "/dead-letters/" + ticketId + "/redrive");
    assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
  }

  private record Replay(int exit, String output) {}

  /**
   * Runs bin/replay as an engineer would (the workflows module is already built by the time e2e
   * runs).
   */
  private static Replay replay(String... args) throws Exception {
    List<String> command =
        new ArrayList<>(List.of(Infra.repoRoot().resolve("bin/replay").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("TEMPORAL_ADDRESS", Infra.temporalAddress());
    builder.environment().put("TEMPORAL_NAMESPACE", Infra.namespace());
    builder.environment().put("REPLAY_NO_BUILD", "1");
    builder.environment().put("PAYLOAD_KEYS", Infra.payloadKeys()); // the histories are encrypted
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Replay(process.exitValue(), output);
  }
}
