package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The degradation ladder against the dev server, Redis, the fake model (real langchain4j client
 * over HTTP) and a fake helpdesk, with the SPEC's breaker defaults (60 s window, > 50% failures
 * over >= 20 calls, open 30 s). One app for the whole class; the tests run in order because the
 * breaker state carries over (as it would in production).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LadderIT {

  private static final String IN_FAQ = "I still have not received my new card";
  private static FakeModelServer model;
  private static Helpdesk helpdesk;
  private static AppProcess app;
  private static final AtomicInteger messages = new AtomicInteger();

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.script(call -> Reply.text("Your new card is on its way."));
    helpdesk = Helpdesk.start();
    app =
        AppProcess.start(
            "ladder",
            Map.of(
                "TASK_QUEUE",
                Infra.uniqueTaskQueue("ladder"),
                "LLM_BASE_URL",
                model.baseUrl(),
                "LLM_API_KEY",
                "test-key",
                "LLM_MODEL",
                "fake-qwen",
                "HELPDESK_WEBHOOK_URL",
                helpdesk.url(),
                "HELPDESK_WEBHOOK_SECRET",
                Helpdesk.SECRET,
                "CS_DEAD_LETTER_INITIAL_BACKOFF",
                "1s",
                "CS_DEAD_LETTER_MAX_BACKOFF",
                "2s",
                // these tests are about the SPEC breaker: outlier ejection (5 failures in a row)
                // would
                // take the model out before the breaker's window fills, so the breaker never opens
                "CS_RESILIENCE_EJECTION_CONSECUTIVEFAILURES",
                "0"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (app != null) {
      app.close();
    }
    if (model != null) {
      model.close();
    }
    if (helpdesk != null) {
      helpdesk.server.stop(0);
    }
  }

  private static JsonNode askAndAwait(String text, String stage) throws Exception {
    String session = "ladder-" + UUID.randomUUID().toString().substring(0, 8);
    String workflowId =
        app.ask(session, "m" + messages.incrementAndGet(), text).get("workflowId").asText();
    return app.awaitStage(workflowId, stage, Duration.ofSeconds(60));
  }

  private static long callsFor(String text) {
    return model.calls().stream().filter(c -> text.equals(c.userMessage())).count();
  }

  @Test
  @Order(1)
  void healthyModelAnswersAtRagLevel() throws Exception {
    JsonNode answered = askAndAwait(IN_FAQ, "ANSWERED");

    assertThat(answered.at("/answer/level").asText()).isEqualTo("RAG");
    assertThat(answered.at("/answer/notice").isNull()).isTrue();
  }

  @Test
  @Order(2)
  void aNonRetryableModelFailureIsAttemptedOnceThenTheFaqAnswers() throws Exception {
    String text = "My card has still not arrived, what now?";
    model.script(call -> Reply.error(400)); // bad request: our fault, retrying cannot help

    JsonNode answered = askAndAwait(text, "ANSWERED");

    assertThat(answered.at("/answer/level").asText()).isEqualTo("FAQ");
    assertThat(answered.at("/answer/notice").asText()).isNotBlank();
    assertThat(answered.at("/answer/reason").asText()).contains("primary model: BadRequest");
    assertThat(callsFor(text)).isEqualTo(1);
  }

  @Test
  @Order(3)
  void aModelAnsweringHttp500IsRetriedByThePolicyThenTheFaqAnswersWithANotice() throws Exception {
    String text = "How long does my new card take to arrive?";
    model.script(call -> Reply.error(500));

    JsonNode answered = askAndAwait(text, "ANSWERED");

    assertThat(answered.at("/answer/level").asText()).isEqualTo("FAQ");
    assertThat(answered.at("/answer/notice").asText()).isNotBlank();
    assertThat(answered.at("/answer/reason").asText()).contains("primary model: ModelServerError");
    assertThat(callsFor(text)).as("max-attempts 3 in application.yml").isEqualTo(3);
  }

  @Test
  @Order(4)
  void duringAnOutageTheBreakerOpensWithin10SecondsAndQuestionsNoLongerPayModelTimeouts()
      throws Exception {
    // every call fails after 1 s: each attempt costs that second (and the retries theirs) until the
    // breaker opens
    model.script(call -> Reply.error(503).after(Duration.ofSeconds(1)));
    long outageStart = System.nanoTime();
    String run =
        UUID.randomUUID()
            .toString()
            .substring(0, 8); // fresh sessions: a reused ID would be a duplicate
    // 20 customers at once (submitted in parallel, as they would arrive): 60 attempts, the breaker
    // needs 20
    List<java.util.concurrent.CompletableFuture<String>> submitted = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String session = "outage-" + run + "-" + i;
      String msg = "m" + messages.incrementAndGet();
      submitted.add(
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> {
                try {
                  JsonNode accepted = app.ask(session, msg, IN_FAQ);
                  assertThat(accepted.path("duplicate").asBoolean()).isFalse();
                  return accepted.get("workflowId").asText();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }));
    }
    List<String> before =
        submitted.stream().map(java.util.concurrent.CompletableFuture::join).toList();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () ->
                assertThat(breakerState("primary-model"))
                    .as(
                        "model calls %d by status %s; health %s",
                        model.calls().size(),
                        model.statusCounts(),
                        app.get("/actuator/health/dependencies").body())
                    .isEqualTo("open"));
    double openedAfterSeconds = (System.nanoTime() - outageStart) / 1e9;
    List<Double> beforeSeconds = new ArrayList<>();
    for (String id : before) {
      JsonNode status = app.awaitStage(id, "ANSWERED", Duration.ofSeconds(60));
      assertThat(status.at("/answer/level").asText()).isEqualTo("FAQ");
      beforeSeconds.add(workflowSeconds(id));
    }
    int callsWhenOpen = model.calls().size();

    List<Double> afterSeconds = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      JsonNode answered = askAndAwait(IN_FAQ + " (" + i + ")", "ANSWERED");
      assertThat(answered.at("/answer/level").asText()).isEqualTo("FAQ");
      assertThat(answered.at("/answer/reason").asText()).contains("CircuitOpen");
      afterSeconds.add(workflowSeconds(answered.path("workflowId").asText()));
    }
    double beforeMean =
        beforeSeconds.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    double afterMean =
        afterSeconds.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    System.out.printf(
        "[ladder] breaker open %.1f s after the outage began; time per question while the model"
            + " failed %.2f s, with the breaker open %.2f s (%.1fx faster)%n",
        openedAfterSeconds, beforeMean, afterMean, beforeMean / afterMean);
    assertThat(openedAfterSeconds)
        .as("breaker open within 10 s of the outage's start")
        .isLessThan(10.0);
    assertThat(model.calls().size()).as("no model calls while open").isEqualTo(callsWhenOpen);
    assertThat(afterMean).isLessThan(beforeMean / 2);
  }

  /** Start to close of the workflow, as the Temporal server recorded it. */
  private static double workflowSeconds(String workflowId) throws Exception {
    JsonNode info =
        Infra.temporalJson("workflow", "describe", "--workflow-id", workflowId)
            .at("/workflowExecutionInfo");
    return Duration.between(
                java.time.Instant.parse(info.at("/startTime").asText()),
                java.time.Instant.parse(info.at("/closeTime").asText()))
            .toMillis()
        / 1000.0;
  }

  private static String breakerState(String dependency) throws Exception {
    JsonNode health =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(app.get("/actuator/health/dependencies").body());
    return health.at("/details/" + dependency + "/state").asText().toLowerCase();
  }

  @Test
  @Order(5)
  void withTheModelDownAQuestionOutsideTheFaqIsTicketedAndEveryTicketReachesTheHelpdeskExactlyOnce()
      throws Exception {
    helpdesk.down.set(true);
    List<String> tickets = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      JsonNode ticketed =
          askAndAwait("Can you recommend a good pizza place near the harbour? " + i, "TICKETED");
      assertThat(ticketed.at("/answer/level").asText()).isEqualTo("TICKET");
      String ticketId = ticketed.at("/answer/ticketId").asText();
      tickets.add(ticketId);
      assertThat(app.get("/api/v1/tickets/" + ticketId).statusCode()).isEqualTo(200);
    }
    // the helpdesk refused them all: each became a dead letter, none was accepted
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              for (String id : tickets) {
                assertThat(
                        Infra.temporalJson(
                                "workflow", "describe", "--workflow-id", "dead-letter-" + id)
                            .at("/workflowExecutionInfo/type/name")
                            .asText())
                    .isEqualTo("DeadLetterTicket");
              }
            });
    assertThat(helpdesk.accepted).isEmpty();
    assertThat(helpdesk.refused.get()).isGreaterThanOrEqualTo(3 * 3);

    // the refusals opened the helpdesk breaker (SPEC: 30 s open); dead letters are delivered once
    // it lets calls
    // through again
    helpdesk.down.set(false);
    long back = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(() -> assertThat(helpdesk.accepted.keySet()).containsAll(tickets));
    System.out.printf(
        "[ladder] helpdesk refused %d deliveries; all %d dead letters delivered %.1f s after it was"
            + " back%n",
        helpdesk.refused.get(), tickets.size(), (System.nanoTime() - back) / 1e9);
    // once every dead-letter workflow has completed nothing can deliver again: then count
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              for (String id : tickets) {
                assertThat(
                        Infra.temporalJson(
                                "workflow", "describe", "--workflow-id", "dead-letter-" + id)
                            .at("/workflowExecutionInfo/status")
                            .asText())
                    .isEqualTo("WORKFLOW_EXECUTION_STATUS_COMPLETED");
              }
            });
    tickets.forEach(id -> assertThat(helpdesk.accepted.get(id).get()).as(id).isEqualTo(1));
    assertThat(helpdesk.forged.get()).as("deliveries whose signature did not verify").isZero();
  }

  @Test
  @Order(6)
  void theLadderIsVisibleInPrometheusMetrics() throws Exception {
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              String metrics = app.get("/actuator/prometheus").body();
              assertThat(metrics)
                  .containsPattern("cs_answer_total\\{[^}]*level=\"RAG\"")
                  .containsPattern("cs_answer_total\\{[^}]*level=\"FAQ\"")
                  .containsPattern("cs_answer_total\\{[^}]*level=\"TICKET\"")
                  .containsPattern("cs_answer_degraded_total\\{[^}]*level=\"FAQ\"")
                  .containsPattern("cs_stage_degraded_total\\{[^}]*stage=\"primary_model\"")
                  .containsPattern("cs_answer_elapsed_seconds_bucket\\{[^}]*level=\"FAQ\"")
                  .containsPattern(
                      "cs_upstream_errors_total\\{[^}]*dependency=\"primary-model\"[^}]*kind=\"server_error\"")
                  .containsPattern("cs_upstream_errors_total\\{[^}]*dependency=\"helpdesk\"")
                  .contains("cs_dead_letters_total")
                  .contains("resilience4j_circuitbreaker_state");
            });
    // readiness includes Temporal and Redis reachability (real ones here); liveness does not
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    JsonNode readiness = json.readTree(app.get("/actuator/health/readiness").body());
    assertThat(readiness.at("/components/temporal/status").asText()).isEqualTo("UP");
    assertThat(readiness.at("/components/temporal/details/serverVersion").asText()).isNotBlank();
    assertThat(readiness.at("/components/redis/details/ping").asText()).isEqualTo("PONG");
    assertThat(
            json.readTree(app.get("/actuator/health/liveness").body())
                .at("/components/redis")
                .isMissingNode())
        .isTrue();
  }

  /**
   * A helpdesk that can be down (503), refuses deliveries whose signature does not verify (401),
   * and counts accepted deliveries per Idempotency-Key.
   */
  static final class Helpdesk {
    static final String SECRET = "e2e-helpdesk-secret-0123456789abcdef";
    final HttpServer server;
    final AtomicInteger forged = new AtomicInteger();
    final AtomicBoolean down = new AtomicBoolean();
    final AtomicInteger refused = new AtomicInteger();
    final Map<String, AtomicInteger> accepted = new ConcurrentHashMap<>();

    private Helpdesk(HttpServer server) {
      this.server = server;
    }

    static Helpdesk start() throws IOException {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      Helpdesk helpdesk = new Helpdesk(server);
      server.createContext(
          "/tickets",
          exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            int status;
            if (!signed(
                exchange.getRequestHeaders().getFirst("X-Signature-Timestamp"),
                exchange.getRequestHeaders().getFirst("X-Signature"),
                body)) {
              helpdesk.forged.incrementAndGet();
              status = 401;
            } else if (helpdesk.down.get()) {
              helpdesk.refused.incrementAndGet();
              status = 503;
            } else {
              String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
              helpdesk.accepted.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
              status = 201;
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
          });
      server.start();
      return helpdesk;
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/tickets";
    }

    /** HMAC-SHA256 of "timestamp.body" with the shared secret (docs/runbook.md). */
    static boolean signed(String timestamp, String signature, byte[] body) {
      if (timestamp == null || signature == null || !signature.startsWith("sha256=")) {
        return false;
      }
      try {
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(
            new javax.crypto.spec.SecretKeySpec(
                SECRET.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update((timestamp + ".").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return java.security.MessageDigest.isEqual(
            mac.doFinal(body),
            java.util.HexFormat.of().parseHex(signature.substring("sha256=".length())));
      } catch (java.security.GeneralSecurityException | IllegalArgumentException e) {
        return false;
      }
    }
  }
}
