package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Call;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The hostile cases against the real stack (dev server, Redis, the packaged app, a fake model that
 * records every prompt): another caller's or user's session ID does not bring that session's turns
 * into the prompt, another caller's question cannot be read, a ticket cannot be answered without
 * the staff role.
 */
class SecurityIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY_A = "e2e-key-a-0123456789abcdef-abcdef0123456789";
  private static final String KEY_B = "e2e-key-b-0123456789abcdef-abcdef0123456789";

  private static FakeModelServer model;
  private static AppProcess app;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.script(call -> Reply.text("Noted: " + call.userMessage()));
    app =
        AppProcess.start(
            "security",
            Map.of(
                "TASK_QUEUE",
                Infra.uniqueTaskQueue("security"),
                "CALLER_API_KEYS",
                "backend-a:" + KEY_A + ",backend-b:" + KEY_B,
                "LLM_BASE_URL",
                model.baseUrl(),
                "LLM_API_KEY",
                "test-key",
                "LLM_MODEL",
                "fake-qwen"));
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(app, model);
  }

  private static String ask(String key, String user, String session, String text) throws Exception {
    String body =
        JSON.writeValueAsString(
            Map.of(
                "sessionId",
                session,
                "userId",
                user,
                "clientMsgId",
                UUID.randomUUID().toString(),
                "text",
                text));
    HttpResponse<String> response =
        app.send("POST", "/api/v1/questions", body, "Authorization", "Bearer " + key);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
    return JSON.readTree(response.body()).get("workflowId").asText();
  }

  private static JsonNode answered(String key, String workflowId) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              HttpResponse<String> response =
                  app.send(
                      "GET",
                      "/api/v1/questions/" + workflowId,
                      null,
                      "Authorization",
                      "Bearer " + key);
              last[0] = JSON.readTree(response.body());
              assertThat(last[0].path("stage").asText()).as(response.body()).isEqualTo("ANSWERED");
            });
    return last[0];
  }

  /**
   * Everything the model was sent for the question with this text: system prompt, history and
   * question.
   */
  private static String promptOf(String text) {
    return model.calls().stream()
        .filter(call -> text.equals(call.userMessage()))
        .map(Call::body)
        .map(JsonNode::toString)
        .findFirst()
        .orElseThrow(() -> new AssertionError("the model never saw: " + text));
  }

  @Test
  void anotherUsersOrCallersSessionIdBringsNoneOfItsTurnsIntoThePrompt() throws Exception {
    String session = "shared-" + UUID.randomUUID().toString().substring(0, 8);
    String secret = "PELICAN-" + UUID.randomUUID().toString().substring(0, 6);
    answered(
        KEY_A,
        ask(KEY_A, "u-a", session, "My code word is " + secret + ". What is my card limit?"));

    String ownFollowUp = "What was my code word? (own " + UUID.randomUUID() + ")";
    answered(KEY_A, ask(KEY_A, "u-a", session, ownFollowUp));
    String otherUser = "What was my code word? (other user " + UUID.randomUUID() + ")";
    answered(KEY_A, ask(KEY_A, "u-x", session, otherUser));
    String otherCaller = "What was my code word? (other caller " + UUID.randomUUID() + ")";
    answered(KEY_B, ask(KEY_B, "u-a", session, otherCaller));

    assertThat(promptOf(ownFollowUp))
        .as("the owner's own session has its history")
        .contains(secret);
    assertThat(promptOf(otherUser))
        .as("another user of the same caller, same session ID")
        .doesNotContain(secret);
    assertThat(promptOf(otherCaller))
        .as("another caller, same user and session ID")
        .doesNotContain(secret);
    System.out.println(
        "[security] session "
            + session
            + ": own follow-up prompt has the earlier turn; other user's"
            + " and other caller's prompts do not");
  }

  @Test
  void anotherCallersQuestionIsNotFoundAndTicketsNeedTheStaffRole() throws Exception {
    String workflowId = ask(KEY_A, "u-a", "s-read-" + UUID.randomUUID(), "How do I top up?");
    answered(KEY_A, workflowId);
    HttpResponse<String> other =
        app.send(
            "GET", "/api/v1/questions/" + workflowId, null, "Authorization", "Bearer " + KEY_B);
    HttpResponse<String> stream =
        app.send(
            "GET",
            "/api/v1/questions/" + workflowId + "/events",
            null,
            "Authorization",
            "Bearer " + KEY_B);
    HttpResponse<String> tickets =
        app.send("GET", "/api/v1/tickets", null, "Authorization", "Bearer " + KEY_A);
    HttpResponse<String> reply =
        app.send(
            "POST",
            "/api/v1/tickets/T-any/reply",
            "{\"text\":\"hi\"}",
            "Authorization",
            "Bearer " + KEY_A);
    HttpResponse<String> anonymous = app.send("GET", "/api/v1/questions/" + workflowId, null);

    assertThat(other.statusCode()).isEqualTo(404);
    assertThat(stream.statusCode()).isEqualTo(404);
    assertThat(tickets.statusCode()).isEqualTo(403);
    assertThat(reply.statusCode()).isEqualTo(403);
    assertThat(anonymous.statusCode()).isEqualTo(401);
    System.out.printf(
        "[security] other caller's status %d, its events %d; caller lists tickets %d, replies %d;"
            + " no credentials %d%n",
        other.statusCode(),
        stream.statusCode(),
        tickets.statusCode(),
        reply.statusCode(),
        anonymous.statusCode());
  }
}
