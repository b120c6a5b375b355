package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.faq.FaqPacks;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With a model configured (our OpenAI-compatible fake over real HTTP), the answer is RAG, grounded
 * in the FAQ.
 */
class RagFlowIT {

  private static FakeModelServer model;
  private static AppProcess app;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.script(
        call ->
            Reply.text("Your new card is on its way and should arrive within 3-5 working days."));
    app =
        AppProcess.start(
            "rag-flow",
            Map.of(
                "TASK_QUEUE",
                Infra.uniqueTaskQueue("rag"),
                "LLM_BASE_URL",
                model.baseUrl(),
                "LLM_API_KEY",
                "test-key",
                "LLM_MODEL",
                "fake-qwen"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (app != null) {
      app.close();
    }
    if (model != null) {
      model.close();
    }
  }

  @Test
  void theModelAnswersWithTheRetrievedFaqInItsPrompt() throws Exception {
    String session = "rag-" + UUID.randomUUID().toString().substring(0, 8);
    String workflowId =
        app.ask(session, "m1", "I still have not received my new card").get("workflowId").asText();

    JsonNode answered = app.awaitStage(workflowId, "ANSWERED", Duration.ofSeconds(60));

    assertThat(answered.at("/answer/level").asText()).isEqualTo("RAG");
    assertThat(answered.at("/answer/faqId").asText()).isEqualTo("card_arrival");
    assertThat(answered.at("/answer/text").asText()).startsWith("Your new card is on its way");
    assertThat(answered.at("/answer/notice").isNull()).isTrue();
    String faqAnswer =
        FaqPacks.loadFromClasspath("banking77").entry("card_arrival").orElseThrow().answer();
    assertThat(model.calls())
        .filteredOn(call -> "I still have not received my new card".equals(call.userMessage()))
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.model()).isEqualTo("fake-qwen");
              assertThat(call.systemPrompt()).contains(faqAnswer);
            });
  }
}
