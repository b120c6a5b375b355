package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lower rungs, reached the way an operator rehearses them (cs.drills.down, see the runbook),
 * against the dev server, Redis and the fake model: retrieval down with a healthy model gives
 * LLM-only answers with a notice; the model and the embedding path down give keyword-level answers,
 * and questions outside the FAQ become tickets.
 */
class DrillsIT {

  private static FakeModelServer model;

  @BeforeAll
  static void startModel() {
    model = FakeModelServer.start();
    model.script(call -> Reply.text("Happy to help with that."));
  }

  @AfterAll
  static void stopModel() {
    if (model != null) {
      model.close();
    }
  }

  private static AppProcess app(String name, String down) throws Exception {
    return app(name, down, "30s");
  }

  private static AppProcess app(String name, String down, String chainBudget) throws Exception {
    return AppProcess.start(
        name,
        Map.of(
            "TASK_QUEUE",
            Infra.uniqueTaskQueue(name),
            "LLM_BASE_URL",
            model.baseUrl(),
            "LLM_MODEL",
            "fake-qwen",
            "CS_DRILLS_DOWN",
            down,
            "CS_CHAIN_BUDGET",
            chainBudget));
  }

  private static JsonNode askAndAwait(AppProcess app, String text, String stage) throws Exception {
    String session = "drill-" + UUID.randomUUID().toString().substring(0, 8);
    String workflowId = app.ask(session, "m1", text).get("workflowId").asText();
    return app.awaitStage(workflowId, stage, Duration.ofSeconds(60));
  }

  @Test
  void retrievalDownMeansLlmOnlyAnswersWithANotice() throws Exception {
    try (AppProcess app = app("drill-retrieval", "retrieval")) {
      JsonNode answered = askAndAwait(app, "I still have not received my new card", "ANSWERED");

      assertThat(answered.at("/answer/level").asText()).isEqualTo("LLM");
      assertThat(answered.at("/answer/notice").asText()).contains("without our knowledge base");
      assertThat(answered.at("/answer/reason").asText())
          .contains("retrieval: RetrievalUnavailable");
    }
  }

  @Test
  void modelAndEmbeddingDownMeansKeywordLevelAndTicketsOutsideTheFaq() throws Exception {
    int callsBefore = model.calls().size();
    try (AppProcess app = app("drill-keyword", "primary-model,embedding")) {
      JsonNode answered = askAndAwait(app, "I still have not received my new card", "ANSWERED");
      assertThat(answered.at("/answer/level").asText()).isEqualTo("KEYWORD");
      assertThat(answered.at("/answer/faqId").asText()).isEqualTo("card_arrival");
      assertThat(answered.at("/answer/notice").asText()).isNotBlank();
      assertThat(answered.at("/answer/reason").asText()).contains("primary model: CircuitOpen");

      JsonNode ticketed =
          askAndAwait(app, "Can you recommend a good pizza place near the harbour?", "TICKETED");
      assertThat(ticketed.at("/answer/level").asText()).isEqualTo("TICKET");
      String ticketId = ticketed.at("/answer/ticketId").asText();
      JsonNode ticket =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(app.get("/api/v1/tickets/" + ticketId).body());
      assertThat(ticket.path("status").asText()).isEqualTo("OPEN");
      assertThat(ticket.path("workflowId").asText())
          .isEqualTo(ticketed.path("workflowId").asText());
    }
    assertThat(model.calls().size())
        .as("no model call while its breaker is forced open")
        .isEqualTo(callsBefore);
  }

  @Test
  void aModelThatHangsIsAbandonedWhenTheChainBudgetRunsOut() throws Exception {
    String text = "My new card still has not come, where is it?";
    try (AppProcess app = app("drill-budget", "", "3s")) {
      model.script(
          call ->
              text.equals(call.userMessage())
                  ? Reply.hang()
                  : Reply.text("Happy to help with that."));
      long t0 = System.nanoTime();
      JsonNode answered = askAndAwait(app, text, "ANSWERED");
      double seconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf(
          "[drills] hanging model: answered at %s after %.1f s with a 3 s chain budget%n",
          answered.at("/answer/level").asText(), seconds);

      assertThat(answered.at("/answer/level").asText()).isEqualTo("FAQ");
      assertThat(answered.at("/answer/reason").asText())
          .isEqualTo("primary model: over the 3 s chain budget");
      assertThat(seconds).as("not the 15 s model timeout").isLessThan(10.0);
    } finally {
      model.releaseHangs();
      model.script(call -> Reply.text("Happy to help with that."));
    }
  }
}
