package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Staff teach the FAQ from a ticket on one instance, and the other instance answers with it: two
 * apps (each its own task queue, so each matches its own questions) on the dev server and Redis. A
 * phrasing added through the staff API on A changes B's next match of that question; it survives a
 * restart of B (the change log is in Redis, applied at start); an admin revert on A undoes it on
 * both; a bad change gets a 400 and changes nothing. The learned text is sealed in Redis.
 */
class FaqLearningIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);

  private static AppProcess a;
  private static AppProcess b;
  private static final List<Long> live = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    a = AppProcess.start("learn-a", Map.of("TASK_QUEUE", Infra.uniqueTaskQueue("learn-a")));
    b = AppProcess.start("learn-b", Map.of("TASK_QUEUE", Infra.uniqueTaskQueue("learn-b")));
  }

  /** The change log is shared by every test on this Redis: take back what this test left live. */
  @AfterAll
  static void stop() throws Exception {
    try {
      if (a != null) {
        for (long version : live) {
          a.post("/api/v1/admin/faq/changes/" + version + "/revert", "");
        }
      }
    } finally {
      Infra.closeAll(a, b);
    }
  }

  private static String ask(AppProcess app, String text) throws Exception {
    String session = "learn-" + UUID.randomUUID().toString().substring(0, 8);
    return app.ask(session, "m1", text).path("workflowId").asText();
  }

  /** Asks until the answer has this level (the other instance applies a change within ~1 s). */
  private static JsonNode askUntil(AppProcess app, String text, String level) {
    AtomicReference<JsonNode> last = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              String workflowId = ask(app, text);
              JsonNode done = awaitSettled(app, workflowId);
              last.set(done);
              assertThat(done.at("/answer/level").asText()).as("%s", done).isEqualTo(level);
            });
    return last.get();
  }

  /** The question's status once it was answered from the FAQ or handed over. */
  private static JsonNode awaitSettled(AppProcess app, String workflowId) {
    AtomicReference<JsonNode> last = new AtomicReference<>();
    await()
        .atMost(ANSWER_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              last.set(app.status(workflowId));
              assertThat(last.get().path("stage").asText()).isIn("ANSWERED", "TICKETED");
            });
    return last.get();
  }

  @Test
  void aPhrasingAddedOnOneInstanceChangesTheNextMatchOnTheOtherSurvivesARestartAndIsReverted()
      throws Exception {
    String run = UUID.randomUUID().toString().replaceAll("[0-9-]", "").substring(0, 6);
    String question = "how many legs does a garden spider have " + run;

    // before: neither instance's FAQ knows it, so it becomes a ticket
    JsonNode ticketed = awaitSettled(a, ask(a, question));
    assertThat(ticketed.path("stage").asText()).as("%s", ticketed).isEqualTo("TICKETED");
    String ticketId = ticketed.at("/answer/ticketId").asText();
    assertThat(awaitSettled(b, ask(b, question)).path("stage").asText()).isEqualTo("TICKETED");

    // a bad change: 400 problem+json, no reply sent, nothing learned
    var bad =
        a.post(
            "/api/v1/tickets/" + ticketId + "/reply",
            "{\"text\":\"Eight.\",\"learn\":{\"asPhrasingOf\":\"no_such_entry\"}}");
    assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
    assertThat(bad.headers().firstValue("Content-Type")).get().asString().contains("problem+json");
    assertThat(bad.body()).contains("no entry 'no_such_entry'");
    assertThat(JSON.readTree(a.get("/api/v1/tickets/" + ticketId).body()).path("status").asText())
        .isEqualTo("OPEN");

    // staff on A answer the ticket and add the question as a phrasing of card_arrival
    var replied =
        a.post(
            "/api/v1/tickets/" + ticketId + "/reply",
            "{\"text\":\"Eight.\",\"learn\":{\"asPhrasingOf\":\"card_arrival\"}}");
    assertThat(replied.statusCode()).as(replied.body()).isEqualTo(202);
    JsonNode learned = JSON.readTree(replied.body()).path("learned");
    long version = learned.path("version").asLong();
    live.add(version);
    assertThat(learned.path("agent").asText()).isEqualTo("e2e-agent");
    assertThat(learned.path("ticketId").asText()).isEqualTo(ticketId);

    // sealed at rest: the learned text is not in Redis in plain text
    RedisClient redis = RedisClient.create(Infra.redisUrl());
    try {
      String raw =
          redis.connect().sync().hget("cs:faq:{banking77}:changes", Long.toString(version));
      assertThat(raw).contains("enc2:").doesNotContain("spider", run);
    } finally {
      redis.shutdown();
    }

    // B's next match of that question is card_arrival: answered from the FAQ
    JsonNode onB = askUntil(b, question, "FAQ");
    assertThat(onB.at("/answer/faqId").asText()).isEqualTo("card_arrival");

    // B restarted: the change is applied from the log at start
    b.close();
    b.restart();
    JsonNode afterRestart = awaitSettled(b, ask(b, question));
    assertThat(afterRestart.at("/answer/level").asText()).as("%s", afterRestart).isEqualTo("FAQ");
    assertThat(afterRestart.at("/answer/faqId").asText()).isEqualTo("card_arrival");

    // the admin sees it in the audit and reverts it on A; both instances hand the question over
    // again
    JsonNode changes = JSON.readTree(a.get("/api/v1/admin/faq/changes?limit=20").body());
    JsonNode listed = null;
    for (JsonNode c : changes) {
      if (c.path("version").asLong() == version) {
        listed = c;
      }
    }
    assertThat(listed).as("%s", changes).isNotNull();
    assertThat(listed.path("text").asText()).isEqualTo(question);
    assertThat(listed.path("entryId").asText()).isEqualTo("card_arrival");
    var reverted = a.post("/api/v1/admin/faq/changes/" + version + "/revert", "");
    assertThat(reverted.statusCode()).as(reverted.body()).isEqualTo(200);
    live.remove(version);
    assertThat(JSON.readTree(reverted.body()).path("revertedBy").asText()).isNotBlank();
    assertThat(a.post("/api/v1/admin/faq/changes/" + version + "/revert", "").statusCode())
        .isEqualTo(409);
    assertThat(askUntil(b, question, "TICKET").at("/answer/ticketId").asText()).isNotBlank();
    assertThat(awaitSettled(a, ask(a, question)).at("/answer/level").asText()).isEqualTo("TICKET");
  }
}
