package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.util.JsonFormat;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.workflows.codec.PayloadKeys;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Customer text at rest, against the dev server and Redis: a question carrying a unique marker (and
 * a card number) leaves no plain text in Temporal's history as the CLI and the admin export show
 * it, in search attributes, in Redis or in the logs, and the card never reaches the model; staff
 * read it back through the codec endpoint and in the Web UI; keys rotate under running questions.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PrivacyIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String RUN = Long.toString(System.nanoTime(), 36);

  /** Unique to this run, so an earlier run's data cannot make the scans pass or fail. */
  private static final String MARKER = "QZMARK" + RUN.toUpperCase();

  private static final String CARD = luhnCard();
  private static final String TICKET_TEXT =
      "Can you recommend a good pizza place near the harbour? " + MARKER;

  private static FakeModelServer model;
  private static AppProcess app;
  private static WorkflowClient temporal;
  private static String answered;
  private static String ticketed;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.script(
        call ->
            call.userMessage().contains("pizza")
                ? Reply.error(400)
                : Reply.text("We will look into the double charge for you."));
    Map<String, String> env = FlowControlIT.laneEnv(Infra.uniqueTaskQueue("privacy"), model, 50, 4);
    env.put("LLM_API_KEY", "test-key");
    app = AppProcess.start("privacy", env);
    temporal = Infra.temporalClient();
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(
        app,
        model,
        temporal == null ? null : () -> temporal.getWorkflowServiceStubs().shutdownNow());
  }

  @Test
  @Order(1)
  void aMarkedQuestionIsStoredEncryptedAndTheCardNeverReachesTheModel() throws Exception {
    answered =
        app.ask(
                "privacy-" + RUN,
                "m1",
                "My card " + CARD + " was charged twice for order " + MARKER + ", why?")
            .get("workflowId")
            .asText();
    JsonNode status = app.awaitStage(answered, "ANSWERED", Duration.ofSeconds(60));
    assertThat(status.at("/answer/level").asText()).isIn("RAG", "LLM");

    // payload data is base64 in these JSON forms: the scans look at it decoded too
    String shown = Infra.runCli("workflow", "show", "--workflow-id", answered);
    assertThat(shown).contains("workflowExecutionStartedEventAttributes");
    assertThat(withPayloadsDecoded(shown)).doesNotContain(MARKER);
    assertNoCard(withPayloadsDecoded(shown));
    HttpResponse<String> exported = app.get("/api/v1/admin/questions/" + answered + "/history");
    assertThat(exported.statusCode()).isEqualTo(200);
    assertThat(exported.body()).contains(answered);
    assertThat(withPayloadsDecoded(exported.body())).doesNotContain(MARKER);
    assertNoCard(withPayloadsDecoded(exported.body()));
    String described = Infra.runCli("workflow", "describe", "--workflow-id", answered);
    assertThat(described).contains("SessionId").doesNotContain(MARKER);

    // decoded with the keys, the Web UI's texts still carry no message text: the summaries of the
    // workflow and its activities, and the current details
    var converter = temporal.getOptions().getDataConverter();
    List<String> metadata = new ArrayList<>();
    for (var event : temporal.fetchHistory(answered).getEvents()) {
      if (event.hasUserMetadata()) {
        for (Payload text :
            List.of(event.getUserMetadata().getSummary(), event.getUserMetadata().getDetails())) {
          if (!text.getData().isEmpty()) {
            metadata.add(converter.fromPayload(text, String.class, String.class));
          }
        }
      }
    }
    metadata.add(
        temporal
            .newUntypedWorkflowStub(answered)
            .query("__temporal_workflow_metadata", WorkflowMetadata.class)
            .getCurrentDetails());
    assertThat(metadata).hasSizeGreaterThan(2);
    assertThat(String.join("\n", metadata)).doesNotContain(MARKER).doesNotContain("charged twice");
    assertNoCard(String.join("\n", metadata));

    List<String> prompts = new ArrayList<>();
    model.calls().forEach(call -> prompts.add(call.body().toString()));
    assertThat(prompts).as("the model was called").isNotEmpty();
    assertThat(String.join("\n", prompts)).contains(MARKER);
    prompts.forEach(PrivacyIT::assertNoCard);
    System.out.printf(
        "[privacy] %s: no marker in `temporal workflow show` (%d chars), the admin export or describe;"
            + " %d prompts without the card%n",
        answered, shown.length(), prompts.size());
  }

  @Test
  @Order(2)
  void staffDecodeTheQuestionThroughTheCodecEndpointAndNobodyElseDoes() throws Exception {
    WorkflowExecutionHistory history = temporal.fetchHistory(answered);
    var input = history.getEvents().get(0).getWorkflowExecutionStartedEventAttributes().getInput();
    Payload first = input.getPayloads(0);
    assertThat(first.getMetadataMap().get("encoding").toStringUtf8()).isEqualTo("binary/encrypted");
    String body = JsonFormat.printer().print(input);

    HttpResponse<String> staff =
        app.send(
            "POST",
            "/codec/decode",
            body,
            "Authorization",
            "Bearer " + AppProcess.STAFF_KEY,
            "X-Namespace",
            Infra.namespace(),
            "Content-Type",
            "application/json");
    HttpResponse<String> nobody =
        app.send("POST", "/codec/decode", body, "Content-Type", "application/json");
    HttpResponse<String> caller =
        app.send(
            "POST",
            "/codec/decode",
            body,
            "Authorization",
            "Bearer " + AppProcess.CALLER_KEY,
            "Content-Type",
            "application/json");

    assertThat(staff.statusCode()).as(staff.body()).isEqualTo(200);
    String decoded = withPayloadsDecoded(staff.body());
    // the original stays in the encrypted workflow input for staff: marker and card both
    assertThat(decoded).contains(MARKER).contains(CARD);
    // the Temporal CLI with the codec endpoint and a staff token shows the text; without, it cannot
    String viaCli =
        Infra.runCli(
            "workflow",
            "show",
            "--workflow-id",
            answered,
            "--codec-endpoint",
            "http://127.0.0.1:" + app.port() + "/codec",
            "--codec-auth",
            "Bearer " + AppProcess.STAFF_KEY);
    assertThat(withPayloadsDecoded(viaCli)).contains(MARKER);
    assertThat(withPayloadsDecoded(shownWithoutCodec())).doesNotContain(MARKER);
    assertThat(nobody.statusCode()).isEqualTo(401);
    assertThat(caller.statusCode()).isEqualTo(403);
    assertThat(nobody.body() + caller.body()).doesNotContain(MARKER);
  }

  @Test
  @Order(3)
  void aTicketKeepsItsTextReadableForStaffAndSealedInRedis() throws Exception {
    ticketed = app.ask("privacy-t-" + RUN, "m1", TICKET_TEXT).get("workflowId").asText();
    String ticketId =
        app.awaitStage(ticketed, "TICKETED", Duration.ofSeconds(60))
            .at("/answer/ticketId")
            .asText();

    HttpResponse<String> ticket = app.get("/api/v1/tickets/" + ticketId);
    assertThat(ticket.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(ticket.body()).path("question").asText()).contains(MARKER);
    HttpResponse<String> reply =
        app.post(
            "/api/v1/tickets/" + ticketId + "/reply",
            JSON.writeValueAsString(Map.of("text", "Try Luigi's, ref " + MARKER)));
    assertThat(reply.statusCode()).as(reply.body()).isBetween(200, 299);
    app.awaitStage(ticketed, "ANSWERED", Duration.ofSeconds(30));
  }

  @Test
  @Order(4)
  void noKeyInRedisNoSearchAttributeAndNoLogLineHoldsTheMarker() throws Exception {
    RedisClient client = RedisClient.create(Infra.redisUrl());
    int keys = 0;
    int holding = 0;
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.limit(500));
        for (String key : page.getKeys()) {
          keys++;
          String value = dump(redis, key);
          if (key.contains(MARKER) || value.contains(MARKER) || value.contains(CARD)) {
            holding++;
            System.out.printf("[privacy] %s holds the marker: %s%n", key, value);
          }
        }
        cursor = page;
      } while (!cursor.isFinished());
    } finally {
      client.shutdown();
    }
    List<JsonNode> listed =
        Infra.temporalJsonList("workflow", "list", "--query", "SessionId='privacy-t-" + RUN + "'");
    String log = Files.readString(app.log());

    System.out.printf(
        "[privacy] scanned %d Redis keys (%d hold the marker), %d log bytes%n",
        keys, holding, log.length());
    assertThat(keys).isGreaterThan(3);
    assertThat(holding).isZero();
    assertThat(listed)
        .extracting(row -> row.at("/execution/workflowId").asText())
        .contains(ticketed);
    assertThat(listed.toString()).doesNotContain(MARKER);
    assertThat(log).contains(answered).doesNotContain(MARKER).doesNotContain(CARD);
  }

  @Test
  @Order(5)
  void theWebUiShowsTheDecodedQuestionToStaffOnlyWithScreenshots() throws Exception {
    String endpoint = "http://127.0.0.1:" + app.port() + "/codec";
    Browser.Result staff =
        Browser.temporalUiCodec(
            "http://" + Infra.temporalUiAddress(),
            Infra.namespace(),
            answered,
            endpoint,
            AppProcess.STAFF_KEY,
            MARKER,
            Browser.screenshotDir().resolve("web-ui-codec-staff.png"),
            Duration.ofSeconds(45));
    Browser.Result anonymous =
        Browser.temporalUiCodec(
            "http://" + Infra.temporalUiAddress(),
            Infra.namespace(),
            answered,
            endpoint,
            "",
            MARKER,
            Browser.screenshotDir().resolve("web-ui-codec-no-credentials.png"),
            Duration.ofSeconds(15));

    System.out.printf("[privacy] Web UI with staff token: %s%n", staff.json());
    System.out.printf("[privacy] Web UI without credentials: %s%n", anonymous.json());
    assertThat(staff.exitCode()).as(staff.stdout() + staff.stderr()).isZero();
    assertThat(staff.json().path("textFound").asBoolean()).as(staff.json().toString()).isTrue();
    assertThat(staff.json().path("codecCalls").toString()).contains("/codec/decode 200");
    assertThat(anonymous.exitCode()).as(anonymous.stdout() + anonymous.stderr()).isZero();
    assertThat(anonymous.json().path("textFound").asBoolean()).isFalse();
    assertThat(anonymous.json().path("codecCalls").toString()).contains("/codec/decode 401");
    assertThat(Browser.screenshotDir().resolve("web-ui-codec-staff.png")).exists();
  }

  @Test
  @Order(6)
  void questionsStartedUnderTheOldKeyFinishAfterARotationAndNewOnesUseTheNewKey() throws Exception {
    String k1 = PayloadKeys.generateEntry("rot1-" + RUN);
    String k2 = PayloadKeys.generateEntry("rot2-" + RUN);
    FakeModelServer slow = FakeModelServer.start();
    slow.script(call -> Reply.text("Noted.").after(Duration.ofMillis(1500)));
    String queue = Infra.uniqueTaskQueue("rotation");
    Map<String, String> env = FlowControlIT.laneEnv(queue, slow, 10, 1);
    env.put("LLM_API_KEY", "test-key");
    env.put("PAYLOAD_KEYS", k1);
    // the questions wait for the model across the restart (not issue 27's deadlines)
    env.put("PATIENCE_QUEUE", "60s");
    List<String> underK1 = new ArrayList<>();
    try (AppProcess before = AppProcess.start("rotation-k1", env)) {
      for (int i = 0; i < 4; i++) {
        underK1.add(
            before.ask("rot-" + RUN + "-" + i, "m1", "Question " + i).get("workflowId").asText());
      }
      // the first one answered, whichever it is (the lane serves them one at a time)
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                for (String id : underK1) {
                  if ("ANSWERED".equals(before.status(id).path("stage").asText())) {
                    return true;
                  }
                }
                return false;
              });
      // stopped without a graceful drain, so the others stay unfinished whatever this machine's
      // speed: a drain would let them finish under k1 and leave nothing to rotate under
      before.kill9();
    }
    Map<String, String> rotated = new HashMap<>(env);
    rotated.put("PAYLOAD_KEYS", k2 + "," + k1);
    try (AppProcess after = AppProcess.start("rotation-k2", rotated)) {
      // nothing ran them while no app was up: these finish under the rotated keys
      List<String> unfinished = new ArrayList<>();
      for (String id : underK1) {
        if (!"ANSWERED".equals(after.status(id).path("stage").asText())) {
          unfinished.add(id);
        }
      }
      for (String id : underK1) {
        after.awaitStage(id, "ANSWERED", Duration.ofSeconds(60));
      }
      String fresh =
          after.ask("rot-" + RUN + "-new", "m1", "After rotation").get("workflowId").asText();
      after.awaitStage(fresh, "ANSWERED", Duration.ofSeconds(60));

      System.out.printf(
          "[privacy] rotation: %d of %d questions started under k1 were unfinished at the restart;"
              + " all answered under k2,k1%n",
          unfinished.size(), underK1.size());
      assertThat(unfinished).as("questions in flight across the rotation").isNotEmpty();
      for (String id : underK1) {
        assertThat(startKeyId(id)).isEqualTo("rot1-" + RUN);
      }
      for (String id : unfinished) {
        assertThat(resultKeyId(id)).isEqualTo("rot2-" + RUN);
      }
      assertThat(startKeyId(fresh)).isEqualTo("rot2-" + RUN);
    } finally {
      slow.close();
    }
  }

  private static String startKeyId(String workflowId) {
    return temporal
        .fetchHistory(workflowId)
        .getEvents()
        .get(0)
        .getWorkflowExecutionStartedEventAttributes()
        .getInput()
        .getPayloads(0)
        .getMetadataMap()
        .get("encryption-key-id")
        .toStringUtf8();
  }

  private static String resultKeyId(String workflowId) {
    return temporal.fetchHistory(workflowId).getEvents().stream()
        .filter(e -> e.hasWorkflowExecutionCompletedEventAttributes())
        .findFirst()
        .orElseThrow()
        .getWorkflowExecutionCompletedEventAttributes()
        .getResult()
        .getPayloads(0)
        .getMetadataMap()
        .get("encryption-key-id")
        .toStringUtf8();
  }

  /** A key's value whatever its type, as one string. */
  private static String dump(RedisCommands<String, String> redis, String key) {
    return switch (redis.type(key)) {
      case "string" -> String.valueOf(redis.get(key));
      case "list" -> String.valueOf(redis.lrange(key, 0, -1));
      case "hash" -> String.valueOf(redis.hgetall(key));
      case "set" -> String.valueOf(redis.smembers(key));
      case "zset" -> String.valueOf(redis.zrange(key, 0, -1));
      case "stream" -> String.valueOf(redis.xrange(key, io.lettuce.core.Range.create("-", "+")));
      default -> "";
    };
  }

  private static String shownWithoutCodec() throws Exception {
    return Infra.runCli("workflow", "show", "--workflow-id", answered);
  }

  /** The JSON, then the base64 {@code data} of every payload in it, decoded. */
  private static String withPayloadsDecoded(String json) throws Exception {
    StringBuilder all = new StringBuilder(json);
    for (JsonNode data : JSON.readTree(json).findValues("data")) {
      if (data.isTextual()) {
        try {
          all.append('\n')
              .append(
                  new String(
                      java.util.Base64.getDecoder().decode(data.asText()),
                      java.nio.charset.StandardCharsets.UTF_8));
        } catch (IllegalArgumentException notBase64) {
          all.append('\n').append(data.asText());
        }
      }
    }
    return all.toString();
  }

  /** Neither the card's digits nor its grouped form. */
  private static void assertNoCard(String text) {
    assertThat(text.replaceAll("[ -]", "")).doesNotContain(CARD.replace(" ", ""));
  }

  /** A random, Luhn-valid 16-digit Visa-shaped number in groups of four. */
  private static String luhnCard() {
    int[] digits = new int[16];
    digits[0] = 4;
    for (int i = 1; i < 15; i++) {
      digits[i] = ThreadLocalRandom.current().nextInt(10);
    }
    int sum = 0;
    for (int i = 14; i >= 0; i--) {
      int d = digits[i];
      if ((14 - i) % 2 == 0) {
        d *= 2;
        if (d > 9) {
          d -= 9;
        }
      }
      sum += d;
    }
    digits[15] = (10 - sum % 10) % 10;
    StringBuilder card = new StringBuilder();
    for (int i = 0; i < 16; i++) {
      if (i > 0 && i % 4 == 0) {
        card.append(' ');
      }
      card.append(digits[i]);
    }
    return card.toString();
  }
}
