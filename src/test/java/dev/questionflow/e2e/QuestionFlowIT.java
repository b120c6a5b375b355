package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One question the whole way on the real dev server and Redis, with no model configured: the FAQ
 * answers, the workflow and its search attributes are visible to the Temporal CLI, duplicates start
 * nothing, and a question nothing can answer becomes a ticket in Redis that a staff reply turns
 * into the answer.
 */
class QuestionFlowIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static AppProcess app;
  private static RedisClient redisClient;
  private static StatefulRedisConnection<String, String> redis;
  private final String session = "it-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startApp() throws Exception {
    app = AppProcess.start("question-flow", Map.of("TASK_QUEUE", Infra.uniqueTaskQueue("flow")));
    redisClient = RedisClient.create(Infra.redisUrl());
    redis = redisClient.connect();
  }

  @AfterAll
  static void stopApp() throws Exception {
    if (app != null) {
      app.close();
    }
    if (redis != null) {
      redis.close();
      redisClient.shutdown();
    }
  }

  @Test
  void aCardQuestionIsAnsweredFromTheFaqAndVisibleToTheTemporalCli() throws Exception {
    JsonNode accepted = app.ask(session, "m1", "I still have not received my new card");
    String workflowId = accepted.get("workflowId").asText();

    JsonNode answered = app.awaitStage(workflowId, "ANSWERED", Duration.ofSeconds(60));
    assertThat(answered.at("/answer/level").asText()).isEqualTo("FAQ");
    assertThat(answered.at("/answer/faqId").asText()).isEqualTo("card_arrival");

    // the worker publishes ANSWERED during the workflow task that completes the workflow, so the
    // status may show it a moment before Temporal has recorded the completion
    JsonNode describe =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> Infra.temporalJson("workflow", "describe", "--workflow-id", workflowId),
                d ->
                    d.at("/workflowExecutionInfo/status")
                        .asText()
                        .equals("WORKFLOW_EXECUTION_STATUS_COMPLETED"));
    assertThat(describe.at("/workflowExecutionInfo/type/name").asText())
        .isEqualTo("QuestionWorkflow");
    assertThat(SearchAttributeValues.value(describe, "Stage").asText()).isEqualTo("ANSWERED");
    assertThat(SearchAttributeValues.value(describe, "AnswerLevel").asText()).isEqualTo("FAQ");
    assertThat(SearchAttributeValues.value(describe, "SessionId").asText()).isEqualTo(session);
    assertThat(SearchAttributeValues.value(describe, "CustomerId").asText())
        .isEqualTo("user-" + session);
    assertThat(SearchAttributeValues.value(describe, "Priority").asInt()).isEqualTo(5);

    List<JsonNode> events =
        Infra.temporalJsonList("workflow", "show", "--workflow-id", workflowId).stream()
            .flatMap(
                node ->
                    node.has("events")
                        ? streamOf(node.get("events"))
                        : java.util.stream.Stream.of(node))
            .toList();
    List<String> activityTypes =
        events.stream()
            .map(
                event ->
                    event.at("/activityTaskScheduledEventAttributes/activityType/name").asText(""))
            .filter(name -> !name.isEmpty())
            .toList();
    // no model is configured, and the intent step says so: no lane entry and no model call is
    // scheduled, and the whole question is one workflow task of local activities (marker events)
    assertThat(activityTypes).isEmpty();
    assertThat(events).hasSizeLessThanOrEqualTo(15);
    assertThat(events)
        .filteredOn(e -> e.has("upsertWorkflowSearchAttributesEventAttributes"))
        .hasSize(1);
    System.out.printf(
        "[flow] a FAQ-level answer without a model: %d history events%n", events.size());
    // eager workflow start: the server starts the first workflow task in the start call's own
    // write (microseconds apart), where a task dispatched through matching waits for a poller's
    // round trip (milliseconds)
    assertThat(events.get(2).path("eventType").asText()).endsWith("WORKFLOW_TASK_STARTED");
    Duration scheduledToStarted =
        Duration.between(
            java.time.Instant.parse(events.get(1).path("eventTime").asText()),
            java.time.Instant.parse(events.get(2).path("eventTime").asText()));
    assertThat(scheduledToStarted).isLessThan(Duration.ofMillis(1));
    // marker details are payloads (base64 "data"): decode them to find the local activities' types
    String markers =
        events.stream()
            .filter(e -> e.has("markerRecordedEventAttributes"))
            .flatMap(e -> e.findValues("data").stream())
            .map(
                d ->
                    new String(
                        java.util.Base64.getDecoder().decode(d.asText()),
                        java.nio.charset.StandardCharsets.UTF_8))
            .reduce("", String::concat);
    for (String local :
        List.of(
            "JoinSession",
            "ClassifyIntent",
            "RetrieveFaq",
            "RenderFaqAnswer",
            "FinishSessionTurn")) {
      assertThat(markers).as("local activity %s in the history", local).contains(local);
    }

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        Infra.temporalJsonList(
                            "workflow",
                            "list",
                            "--query",
                            "SessionId='"
                                + session
                                + "' AND Stage='ANSWERED' AND AnswerLevel='FAQ'"))
                    .extracting(row -> row.at("/execution/workflowId").asText())
                    .containsExactly(workflowId));
  }

  /**
   * The service takes no multipart bodies: one without its boundary was a 503 on any path, even
   * {@code GET /}, which invites every client to retry. Now it is read by the endpoint's own rules.
   */
  @Test
  void aMultipartBodyWithoutBoundaryIsNeverAServerError() throws Exception {
    for (String method : List.of("GET", "POST")) {
      for (String path : List.of("/", "/api/v1/questions", "/api/v1/tickets")) {
        HttpResponse<String> response =
            app.send(method, path, "--x\r\n", "Content-Type", "multipart/form-data");
        assertThat(response.statusCode()).as(method + " " + path).isLessThan(500);
      }
    }
    HttpResponse<String> ask =
        app.send(
            "POST",
            "/api/v1/questions",
            "--x\r\n",
            "Content-Type",
            "multipart/form-data",
            "Authorization",
            app.credentialsFor("/api/v1/questions"));
    assertThat(ask.statusCode()).isEqualTo(415);
    assertThat(ask.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
  }

  /**
   * A Content-Type that names no single media type was a 503 wherever a body was read, and an
   * undecodable form body on PUT was a 500 from a filter: both are the client's error.
   */
  @Test
  void aContentTypeThatIsNoMediaTypeOrAnUndecodableFormIsAClientError() throws Exception {
    String credentials = app.credentialsFor("/api/v1/questions");
    for (String type : List.of("*/*", "application/*", "application/json;;;=", "no-slash")) {
      HttpResponse<String> response =
          app.send(
              "POST",
              "/api/v1/questions",
              "{}",
              "Content-Type",
              type,
              "Authorization",
              credentials);
      assertThat(response.statusCode()).as(type).isEqualTo(415);
      assertThat(response.headers().firstValue("Content-Type"))
          .as(type)
          .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
    }
    HttpResponse<String> form =
        app.send(
            "PUT",
            "/api/v1/tickets",
            "a=%zz&b=%ff%fe",
            "Content-Type",
            "application/x-www-form-urlencoded",
            "Authorization",
            credentials);
    assertThat(form.statusCode()).isBetween(400, 499);
    HttpResponse<String> accept =
        app.send(
            "GET", "/api/v1/questions/x", null, "Accept", "*/*;q=x", "Authorization", credentials);
    assertThat(accept.statusCode()).isEqualTo(406);
    assertThat(accept.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
  }

  /**
   * What Tomcat refuses before any filter runs is problem+json too, and a version it does not speak
   * is the client's error (a 400, not a 505 that invites a retry).
   */
  @Test
  void requestLinesTomcatRefusesAreProblemsOfTheClient() {
    for (String line : List.of("GET /{} HTTP/1.1", "GET /%00 HTTP/1.1", "GET / HTTP/9.9")) {
      RawHttp.Response response =
          RawHttp.exchange(
              app.port(),
              (line + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII),
              10_000);
      assertThat(response.status()).as(line).isEqualTo(400);
      assertThat(response.header("content-type")).as(line).startsWith("application/problem+json");
      assertThat(response.bodyText()).as(line).contains("\"status\":400");
    }
  }

  @Test
  void aRepeatedSubmitReturnsTheSameWorkflowAndStartsNoSecond() throws Exception {
    JsonNode first = app.ask(session, "same-msg", "How do I top up my account?");
    JsonNode second = app.ask(session, "same-msg", "How do I top up my account?");

    assertThat(second.get("workflowId").asText()).isEqualTo(first.get("workflowId").asText());
    assertThat(first.get("duplicate").asBoolean()).isFalse();
    assertThat(second.get("duplicate").asBoolean()).isTrue();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        Infra.temporalJsonList(
                            "workflow", "list", "--query", "SessionId='" + session + "'"))
                    .hasSize(1));
  }

  @Test
  void anUnanswerableQuestionBecomesARedisTicketThatAStaffReplyAnswers() throws Exception {
    String workflowId =
        app.ask(session, "m-oos", "What is the airspeed velocity of an unladen swallow?")
            .get("workflowId")
            .asText();

    JsonNode ticketed = app.awaitStage(workflowId, "TICKETED", Duration.ofSeconds(60));
    String ticketId = ticketed.at("/answer/ticketId").asText();
    assertThat(ticketed.at("/answer/level").asText()).isEqualTo("TICKET");
    assertThat(redis.sync().get("cs:{tickets}:ticket:" + ticketId))
        .contains(workflowId)
        .contains("\"status\":\"OPEN\"");
    assertThat(redis.sync().zscore("cs:{tickets}:status:OPEN", ticketId)).isNotNull();
    assertThat(app.get("/api/v1/tickets?limit=500").body()).contains(ticketId);
    // every status read so far came from where a read is cheap: no workflow task per poll (the
    // handed-over status as its worker published it, so not even a description)
    assertThat(app.metric("cs_status_reads_total", "source=\"published\"")).isPositive();
    assertThat(app.metric("cs_status_reads_total", "source=\"query\"")).isZero();

    // the inbox lives in Redis and the wait for a reply in Temporal: an app crash loses neither
    app.kill9();
    app.restart();
    assertThat(app.get("/api/v1/tickets?limit=500").body()).contains(ticketId);

    var reply =
        app.post(
            "/api/v1/tickets/" + ticketId + "/reply", "{\"text\":\"About 11 metres per second.\"}");
    assertThat(reply.statusCode()).isEqualTo(202);

    JsonNode answered = app.awaitStage(workflowId, "ANSWERED", Duration.ofSeconds(30));
    assertThat(answered.at("/answer/level").asText()).isEqualTo("HUMAN");
    assertThat(answered.at("/answer/text").asText()).isEqualTo("About 11 metres per second.");
    assertThat(redis.sync().get("cs:{tickets}:ticket:" + ticketId))
        .contains("\"status\":\"ANSWERED\"")
        .as("the agent is the staff key's name, not anything in the body")
        .contains("e2e-agent");
    assertThat(redis.sync().zscore("cs:{tickets}:status:OPEN", ticketId)).isNull();
  }

  @Test
  void theEventStreamReportsEachStageChangeAndEndsWithTheAnswer() throws Exception {
    String workflowId =
        app.ask(session, "m-sse", "I still have not received my new card")
            .get("workflowId")
            .asText();

    List<String> events = new ArrayList<>();
    List<JsonNode> statuses = new ArrayList<>();
    String answerData = null;
    for (AppProcess.Event event : app.events(workflowId, Duration.ofSeconds(60))) {
      events.add(event.name());
      if ("status".equals(event.name())) {
        statuses.add(JSON.readTree(event.data()));
      } else if ("answer".equals(event.name())) {
        answerData = event.data();
      }
    }

    assertThat(events).last().isEqualTo("answer");
    for (int i = 1; i < statuses.size(); i++) {
      assertThat(statuses.get(i))
          .as("an event is sent only on a change")
          .isNotEqualTo(statuses.get(i - 1));
    }
    List<String> stages = statuses.stream().map(s -> s.path("stage").asText()).distinct().toList();
    // WAITING_IN_QUEUE shows up when the question waits for its model lane (not with an idle lane)
    assertThat(List.of("RECEIVED", "PROCESSING", "WAITING_IN_QUEUE", "PROCESSING", "ANSWERED"))
        .containsSubsequence(stages);
    assertThat(stages).last().isEqualTo("ANSWERED");
    assertThat(JSON.readTree(answerData).path("faqId").asText()).isEqualTo("card_arrival");
  }

  private static java.util.stream.Stream<JsonNode> streamOf(JsonNode array) {
    return java.util.stream.StreamSupport.stream(array.spliterator(), false);
  }
}
