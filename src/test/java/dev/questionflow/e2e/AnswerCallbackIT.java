package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.questionflow.activities.callback.WebhookSigner;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 30's answer callbacks against the packaged app, received by a real receiver: a python3
 * process running the verifier of docs/api.md ("Verifying a callback", taken from the file, so the
 * document cannot drift from what works) inside a small HTTP server that logs what it made of each
 * request. A delivery (its data the status the status endpoint returns), a retry after the receiver
 * answered 500, the hand-over and the person's answer, a per-request URL; and a replayed request
 * and altered, re-signed and stale ones refused by the documented verifier.
 */
class AnswerCallbackIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * The receiver around the documented verifier (test code, not the document's): it answers 500 to
   * the first request to a path with "outage" in it, and 503 to every request to a path with "down"
   * in it until it is told "/control/up" (its outages); it verifies every other, and logs one JSON
   * line per request with what it made of it and when.
   */
  private static final String RECEIVER =
      """
      import json, sys, time
      from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
      exec(open(sys.argv[1]).read())  # the verifier block of docs/api.md
      SECRET, outages, down, log = sys.argv[2], [1], [True], open(sys.argv[3], "a")

      class Receiver(BaseHTTPRequestHandler):
          def do_POST(self):
              body = self.rfile.read(int(self.headers.get("content-length", 0)))
              headers = {k.lower(): v for k, v in self.headers.items()}
              if self.path == "/control/up":
                  down[0] = False
                  outcome, status = "control", 204
              elif "outage" in self.path and outages[0] > 0:
                  outages[0] -= 1
                  outcome, status = "outage", 500
              elif "down" in self.path and down[0]:
                  outcome, status = "outage", 503
              else:
                  try:
                      verify(SECRET, headers, body)
                      processed(headers["webhook-id"])
                      outcome, status = "processed", 204
                  except Duplicate:
                      outcome, status = "duplicate", 200
                  except Refused as e:
                      outcome, status = "refused: " + str(e), 400
              log.write(json.dumps({"outcome": outcome, "path": self.path, "headers": headers,
                                    "body": body.decode(), "at": time.time()}) + "\\n")
              log.flush()
              self.send_response(status)
              self.end_headers()

          def log_message(self, *args):
              pass

      server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
      print(server.server_address[1], flush=True)
      server.serve_forever()
      """;

  private record Request(
      String outcome, String path, Map<String, String> headers, String body, Instant at) {}

  private static Process receiver;
  private static Path receiverLog;
  private static String receiverBase;
  private static AppProcess app;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory(Infra.workDir(), "callbacks");
    Path verifier = dir.resolve("verifier.py");
    Files.writeString(verifier, documentedVerifier());
    Path script = dir.resolve("receiver.py");
    Files.writeString(script, RECEIVER);
    receiverLog = dir.resolve("received.jsonl");
    receiver =
        new ProcessBuilder(
                "python3", script.toString(), verifier.toString(), SECRET, receiverLog.toString())
            .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("receiver.err").toFile()))
            .start();
    String port =
        new BufferedReader(new InputStreamReader(receiver.getInputStream(), StandardCharsets.UTF_8))
            .readLine();
    assertThat(port).as("the receiver's port").matches("\\d+");
    receiverBase = "http://127.0.0.1:" + port;
    app =
        AppProcess.start(
            "answer-callbacks",
            Map.of(
                "TASK_QUEUE",
                Infra.uniqueTaskQueue("callbacks"),
                "CALLER_CALLBACKS",
                "e2e-backend:" + receiverBase + "/hooks/qf",
                "CALLER_CALLBACK_SECRETS",
                "e2e-backend:" + SECRET,
                // two attempts a round (the default five take 15 s to give up)
                "CS_ACTIVITIES_CALLBACKDELIVERY_RETRY_MAXATTEMPTS",
                "2"));
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(app);
    if (receiver != null) {
      receiver.destroy();
      receiver.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** The first python block after the heading "Verifying a callback" of docs/api.md. */
  static String documentedVerifier() throws Exception {
    String doc = Files.readString(Infra.repoRoot().resolve("docs/api.md"));
    Matcher block =
        Pattern.compile("### Verifying a callback\\n.*?```python\\n(.*?)```", Pattern.DOTALL)
            .matcher(doc);
    assertThat(block.find()).as("docs/api.md has the verifier").isTrue();
    return block.group(1);
  }

  private static List<Request> received() throws Exception {
    List<Request> requests = new ArrayList<>();
    if (!Files.exists(receiverLog)) {
      return requests;
    }
    for (String line : Files.readAllLines(receiverLog)) {
      JsonNode r = JSON.readTree(line);
      requests.add(
          new Request(
              r.get("outcome").asText(),
              r.get("path").asText(),
              JSON.convertValue(
                  r.get("headers"),
                  JSON.getTypeFactory().constructMapType(Map.class, String.class, String.class)),
              r.get("body").asText(),
              Instant.ofEpochMilli((long) (r.get("at").asDouble() * 1000))));
    }
    return requests;
  }

  private static List<Request> receivedFor(String webhookId) throws Exception {
    return received().stream()
        .filter(r -> webhookId.equals(r.headers().get("webhook-id")))
        .toList();
  }

  /** Waits until the receiver processed {@code webhookId}; returns every request that had it. */
  private static List<Request> awaitProcessed(String webhookId) {
    List<Request> requests = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              requests.clear();
              requests.addAll(receivedFor(webhookId));
              assertThat(requests).extracting(Request::outcome).contains("processed");
            });
    return requests;
  }

  private static String ask(String session, String text, String callbackUrl) throws Exception {
    ObjectNode body =
        JSON.createObjectNode()
            .put("sessionId", session)
            .put("userId", "user-" + session)
            .put("clientMsgId", "m1")
            .put("text", text);
    if (callbackUrl != null) {
      body.put("callbackUrl", callbackUrl);
    }
    HttpResponse<String> response = app.post("/api/v1/questions", body.toString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
    return JSON.readTree(response.body()).get("workflowId").asText();
  }

  /** Sends a request to the receiver as the app would, with these headers and body. */
  private static int sendToReceiver(String path, Map<String, String> headers, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(receiverBase + path))
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    for (String name :
        List.of("content-type", "webhook-id", "webhook-timestamp", "webhook-signature")) {
      if (headers.containsKey(name)) {
        request.header(name, headers.get(name));
      }
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static String outcomeOf(String webhookId) throws Exception {
    List<Request> requests = receivedFor(webhookId);
    return requests.get(requests.size() - 1).outcome();
  }

  @Test
  void anAnsweredQuestionIsCalledBackSignedAfterAnOutageAndItsReplaysAndForgeriesAreRefused()
      throws Exception {
    String session = "callback-" + UUID.randomUUID().toString().substring(0, 8);
    // the registered default would do; this path has the receiver answer its first request 500
    String workflowId =
        ask(session, "I still have not received my new card", receiverBase + "/hooks/qf?outage");
    String webhookId = "msg_" + workflowId + "_answered";

    // the receiver's first answer was a 500 (its outage): the retry, same ID, was processed
    List<Request> requests = awaitProcessed(webhookId);
    assertThat(requests).extracting(Request::outcome).containsExactly("outage", "processed");
    Request delivered = requests.get(1);
    assertThat(delivered.path()).isEqualTo("/hooks/qf?outage");
    assertThat(requests.get(0).body()).isEqualTo(delivered.body());
    JsonNode event = JSON.readTree(delivered.body());
    assertThat(event.get("type").asText()).isEqualTo("question.answered");
    assertThat(Instant.parse(event.get("timestamp").asText()))
        .isBetween(Instant.now().minusSeconds(120), Instant.now());
    // the status as the status endpoint returns it
    assertThat(event.get("data")).isEqualTo(app.status(workflowId));
    assertThat(event.at("/data/answer/level").asText()).isEqualTo("FAQ");
    // the question did not wait for its callback: it closed before the retry was delivered
    Instant closed =
        Instant.parse(
            Infra.temporalJson("workflow", "describe", "--workflow-id", workflowId)
                .at("/workflowExecutionInfo/closeTime")
                .asText());
    assertThat(closed).isBefore(delivered.at());

    // the same request again (a replay within the tolerance): taken as a duplicate, not processed
    assertThat(sendToReceiver(delivered.path(), delivered.headers(), delivered.body()))
        .isEqualTo(200);
    assertThat(outcomeOf(webhookId)).isEqualTo("duplicate");
    assertThat(receivedFor(webhookId)).extracting(Request::outcome).containsOnlyOnce("processed");

    // the body altered (another answer) under the original signature
    assertThat(
            sendToReceiver(
                delivered.path(),
                delivered.headers(),
                delivered.body().replace("working days", "hours")))
        .isEqualTo(400);
    assertThat(outcomeOf(webhookId)).isEqualTo("refused: signature does not match");

    // a new message signed with another secret, and one signed with ours but stale
    long now = Instant.now().getEpochSecond();
    assertThat(forged("msg_forged", now, "whsec_" + "A".repeat(32))).isEqualTo(400);
    assertThat(outcomeOf("msg_forged")).isEqualTo("refused: signature does not match");
    assertThat(forged("msg_stale", now - 6 * 60, SECRET)).isEqualTo(400);
    assertThat(outcomeOf("msg_stale")).isEqualTo("refused: timestamp outside the tolerance");
    // and, to show the refusals are the verifier's and not the request's: signed right, taken
    assertThat(forged("msg_fresh", now, SECRET)).isEqualTo(204);

    assertThat(app.metric("cs_callbacks_delivered_total", "type=\"question.answered\""))
        .isGreaterThanOrEqualTo(1);
    assertThat(app.metric("cs_callbacks_retried_total", "type=\"question.answered\""))
        .isGreaterThanOrEqualTo(1);
  }

  private static int forged(String webhookId, long timestamp, String secret) throws Exception {
    String body =
        "{\"type\":\"question.answered\",\"timestamp\":\"2026-12-06T00:00:00Z\",\"data\":{}}";
    String signature =
        WebhookSigner.fromSecret(secret)
            .sign(webhookId, timestamp, body.getBytes(StandardCharsets.UTF_8));
    return sendToReceiver(
        "/hooks/qf",
        Map.of(
            "content-type",
            "application/json",
            "webhook-id",
            webhookId,
            "webhook-timestamp",
            Long.toString(timestamp),
            "webhook-signature",
            signature),
        body);
  }

  @Test
  void aHandedOverQuestionIsCalledBackAtTheHandOverAndAtThePersonsAnswer() throws Exception {
    String session = "callback-ticket-" + UUID.randomUUID().toString().substring(0, 8);
    String workflowId = ask(session, "What is the airspeed velocity of an unladen swallow?", null);

    JsonNode ticketed =
        JSON.readTree(awaitProcessed("msg_" + workflowId + "_ticketed").get(0).body());
    assertThat(ticketed.get("type").asText()).isEqualTo("question.ticketed");
    assertThat(ticketed.at("/data/stage").asText()).isEqualTo("TICKETED");
    assertThat(ticketed.at("/data/answer/level").asText()).isEqualTo("TICKET");
    String ticketId = ticketed.at("/data/answer/ticketId").asText();

    HttpResponse<String> reply =
        app.post(
            "/api/v1/tickets/" + ticketId + "/reply", "{\"text\":\"About 11 metres per second.\"}");
    assertThat(reply.statusCode()).as(reply.body()).isEqualTo(202);

    List<Request> human = awaitProcessed("msg_" + workflowId + "_human");
    JsonNode answered = JSON.readTree(human.get(human.size() - 1).body());
    assertThat(answered.get("type").asText()).isEqualTo("question.answered_by_person");
    assertThat(answered.at("/data/answer/level").asText()).isEqualTo("HUMAN");
    assertThat(answered.at("/data/answer/text").asText()).isEqualTo("About 11 metres per second.");
    assertThat(answered.get("data")).isEqualTo(app.status(workflowId));
  }

  @Test
  void aRequestMayNameAnotherPathOnItsRegisteredHostAndNothingElse() throws Exception {
    String session = "callback-url-" + UUID.randomUUID().toString().substring(0, 8);
    String workflowId =
        ask(session, "How long does a card take to arrive?", receiverBase + "/hooks/other?t=7");

    List<Request> requests = awaitProcessed("msg_" + workflowId + "_answered");
    assertThat(requests.get(requests.size() - 1).path()).isEqualTo("/hooks/other?t=7");

    String refusedSession = "callback-refused-" + UUID.randomUUID().toString().substring(0, 8);
    for (String elsewhere :
        List.of(
            "https://example.com/hooks/qf",
            "http://127.0.0.2" + receiverBase.substring(receiverBase.lastIndexOf(':')) + "/hooks",
            "http://169.254.169.254/latest/meta-data/")) {
      ObjectNode body =
          JSON.createObjectNode()
              .put("sessionId", refusedSession)
              .put("userId", "user-" + refusedSession)
              .put("clientMsgId", "m1")
              .put("text", "How long does a card take to arrive?")
              .put("callbackUrl", elsewhere);
      HttpResponse<String> response = app.post("/api/v1/questions", body.toString());
      assertThat(response.statusCode()).as(elsewhere).isEqualTo(400);
      assertThat(response.headers().firstValue("Content-Type").orElse(""))
          .startsWith("application/problem+json");
      assertThat(JSON.readTree(response.body()).get("detail").asText())
          .startsWith("callbackUrl: ")
          .containsAnyOf("registered callback hosts", "only https");
    }
    // nothing started: the same message accepted now is not a duplicate
    HttpResponse<String> accepted =
        app.post(
            "/api/v1/questions",
            JSON.createObjectNode()
                .put("sessionId", refusedSession)
                .put("userId", "user-" + refusedSession)
                .put("clientMsgId", "m1")
                .put("text", "How long does a card take to arrive?")
                .toString());
    assertThat(accepted.statusCode()).isEqualTo(202);
    assertThat(JSON.readTree(accepted.body()).get("duplicate").asBoolean()).isFalse();
  }

  @Test
  void aCallbackNobodyTakesIsADeadLetterThatARedriveDeliversOnceTheReceiverIsBack()
      throws Exception {
    String session = "callback-down-" + UUID.randomUUID().toString().substring(0, 8);
    String workflowId =
        ask(session, "How long does a card take to arrive?", receiverBase + "/hooks/down");
    String callbackId = workflowId + "-callback-answered";

    // both attempts of the round failed: a dead letter, found as the runbook finds them
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(
                        Infra.temporalJsonList(
                            "workflow",
                            "list",
                            "--query",
                            "WorkflowType='AnswerCallback' AND Stage='DEAD_LETTER'"
                                + " AND ExecutionStatus='Running' AND WorkflowId='"
                                + callbackId
                                + "'"))
                    .hasSize(1));
    assertThat(receivedFor("msg_" + workflowId + "_answered"))
        .extracting(Request::outcome)
        .containsExactly("outage", "outage");
    // the SDK's metrics scope reports every few seconds
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(app.metric("cs_callbacks_dead_lettered_total", "AnswerCallback"))
                    .isGreaterThanOrEqualTo(1));

    sendToReceiver("/control/up", Map.of(), "");
    Infra.runCli("workflow", "signal", "--workflow-id", callbackId, "--name", "redrive");

    List<Request> requests = awaitProcessed("msg_" + workflowId + "_answered");
    assertThat(requests)
        .extracting(Request::outcome)
        .containsExactly("outage", "outage", "processed");
    assertThat(JSON.readTree(requests.get(2).body()).get("data")).isEqualTo(app.status(workflowId));
  }
}
