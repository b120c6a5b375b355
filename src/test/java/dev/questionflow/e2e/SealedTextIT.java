package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.questionflow.activities.ticket.RedisTicketInbox;
import dev.questionflow.activities.ticket.Ticket;
import dev.questionflow.workflows.codec.PayloadKeys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reseal on the packaged app against Redis: tickets written before (plain text, enc1) are
 * listed, the admin's reseal rewrites them as enc2, and an app with PAYLOAD_SEALED_ONLY then lists
 * them but not a plain ticket planted after.
 */
class SealedTextIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant OLD = Instant.parse("2000-01-01T00:00:00Z"); // listed first

  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisCommands<String, String> redis;
  private static final String PREFIX = "T-sealed-" + UUID.randomUUID().toString().substring(0, 8);
  private static final List<String> IDS = new ArrayList<>();
  private static final String TASK_QUEUE = Infra.uniqueTaskQueue("sealed-text");

  @BeforeAll
  static void connect() {
    client = RedisClient.create(Infra.redisUrl());
    connection = client.connect();
    redis = connection.sync();
  }

  @AfterAll
  static void cleanUp() {
    if (redis != null) {
      for (String id : IDS) {
        redis.del("cs:{tickets}:ticket:" + id);
        redis.zrem("cs:{tickets}:status:OPEN", id);
      }
    }
    if (client != null) {
      client.shutdown();
    }
  }

  @Test
  void oldTicketsAreResealedAndThenOnlyTheSealedFormIsRead() throws Exception {
    String plain = plant("p", "plain question from before");
    String enc1 = plant("q", "placeholder");
    PayloadKeys keys = PayloadKeys.parse(Infra.payloadKeys());
    setQuestion(
        enc1,
        "enc1:"
            + keys.primaryId()
            + ":"
            + Base64.getEncoder()
                .encodeToString(
                    keys.seal("enc1 question from before".getBytes(StandardCharsets.UTF_8))));

    try (AppProcess app = AppProcess.start("sealed-text", Map.of("TASK_QUEUE", TASK_QUEUE))) {
      assertThat(questions(app))
          .containsEntry(plain, "plain question from before")
          .containsEntry(enc1, "enc1 question from before");

      HttpResponse<String> reseal =
          app.send(
              "POST",
              "/api/v1/admin/stored-text/reseal",
              null,
              "Authorization",
              app.credentialsFor("/api/v1/admin"));
      assertThat(reseal.statusCode()).as(reseal.body()).isEqualTo(200);
      JsonNode report = JSON.readTree(reseal.body());
      assertThat(report.at("/stores/tickets/resealed").asLong()).isGreaterThanOrEqualTo(2);
      assertThat(report.at("/keyId").asText()).isEqualTo(keys.primaryId());
      System.out.println("[sealed-text] reseal: " + reseal.body());
    }
    for (String id : List.of(plain, enc1)) {
      assertThat(JSON.readTree(redis.get("cs:{tickets}:ticket:" + id)).get("question").asText())
          .startsWith("enc2:" + keys.primaryId() + ":");
    }

    String planted = plant("r", "planted after the reseal");
    try (AppProcess strict =
        AppProcess.start(
            "sealed-text-strict",
            Map.of("TASK_QUEUE", TASK_QUEUE, "PAYLOAD_SEALED_ONLY", "true"))) {
      assertThat(questions(strict))
          .containsEntry(plain, "plain question from before")
          .containsEntry(enc1, "enc1 question from before")
          .doesNotContainKey(planted);
      assertThat(java.nio.file.Files.readString(strict.log()))
          .contains("ticket " + planted + " left out of the list");
    }
  }

  /** The open tickets staff see: ID -> question. */
  private static Map<String, String> questions(AppProcess app) throws Exception {
    HttpResponse<String> list = app.get("/api/v1/tickets?limit=500");
    assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
    Map<String, String> out = new java.util.HashMap<>();
    for (JsonNode t : JSON.readTree(list.body())) {
      out.put(t.get("ticketId").asText(), t.get("question").asText());
    }
    return out;
  }

  /** An open ticket written as encryption-off deployments wrote it: plain text. */
  private static String plant(String suffix, String question) {
    String id = PREFIX + "-" + suffix;
    IDS.add(id);
    new RedisTicketInbox(connection)
        .createIfAbsent(
            new Ticket(
                id,
                "q-" + id,
                "s1",
                "u1",
                question,
                "general_question",
                5,
                List.of(),
                "no match",
                Ticket.Status.OPEN,
                OLD,
                null,
                null,
                null,
                null,
                null,
                "e2e-backend"));
    return id;
  }

  private static void setQuestion(String id, String value) throws Exception {
    ObjectNode node = (ObjectNode) JSON.readTree(redis.get("cs:{tickets}:ticket:" + id));
    node.put("question", value);
    redis.set("cs:{tickets}:ticket:" + id, JSON.writeValueAsString(node));
  }
}
