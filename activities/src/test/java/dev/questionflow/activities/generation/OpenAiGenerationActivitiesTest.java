package dev.questionflow.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.retrieval.FaqHit;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenAiGenerationActivitiesTest {

  private final FakeModelServer fake = FakeModelServer.start();
  private final FaqHit cardArrival =
      new FaqHit("card_arrival", "When will my card arrive?", "Cards arrive within 3-5 working days.", 12.0);

  @AfterEach
  void stop() {
    fake.close();
  }

  private OpenAiGenerationActivities activities() {
    return new OpenAiGenerationActivities(
        new ModelSettings(fake.baseUrl(), "test-key", "fake-model", Duration.ofSeconds(5), "Northwind Bank"));
  }

  @Test
  void groundsThePromptInTheRetrievedFaqAnswerOverRealHttp() {
    fake.script(call -> Reply.text("Your card should arrive within 3-5 working days."));

    GenerationResult result = activities().generateAnswer(new GenerationRequest("Where is my card?", List.of(cardArrival), null));

    assertThat(result.answered()).isTrue();
    assertThat(result.text()).isEqualTo("Your card should arrive within 3-5 working days.");
    assertThat(fake.calls()).singleElement().satisfies(call -> {
      assertThat(call.model()).isEqualTo("fake-model");
      assertThat(call.userMessage()).isEqualTo("Where is my card?");
      assertThat(call.systemPrompt()).contains("Cards arrive within 3-5 working days.").contains("card_arrival");
    });
  }

  @Test
  void withoutKnowledgeThePromptCarriesNoFaq() {
    activities().generateAnswer(new GenerationRequest("Hello?", List.of(), null));

    assertThat(fake.calls().get(0).systemPrompt()).doesNotContain("Knowledge:");
  }

  @Test
  void notConfiguredReportsSoWithoutInventingText() {
    OpenAiGenerationActivities unconfigured =
        new OpenAiGenerationActivities(new ModelSettings("", null, "m", Duration.ofSeconds(1), "Northwind Bank"));

    GenerationResult result = unconfigured.generateAnswer(new GenerationRequest("Where is my card?", List.of(cardArrival), null));

    assertThat(result.outcome()).isEqualTo(GenerationResult.Outcome.NOT_CONFIGURED);
    assertThat(result.text()).isNull();
  }

  @Test
  void badRequestIsNonRetryableAndCalledOnce() {
    fake.script(call -> Reply.error(400));

    assertThatThrownBy(() -> activities().generateAnswer(new GenerationRequest("x", List.of(), null)))
        .isInstanceOfSatisfying(ApplicationFailure.class, f -> assertThat(f.isNonRetryable()).isTrue());
    assertThat(fake.calls()).hasSize(1);
  }

  @Test
  void serverErrorIsLeftToTemporalRetriesAndCalledOnce() {
    fake.script(call -> Reply.error(503));

    assertThatThrownBy(() -> activities().generateAnswer(new GenerationRequest("x", List.of(), null)))
        .isNotInstanceOf(ApplicationFailure.class);
    assertThat(fake.calls()).as("the client's own retries are off").hasSize(1);
  }

  @Test
  void emptyOutputIsRejected() {
    fake.script(call -> Reply.text("   "));

    assertThatThrownBy(() -> activities().generateAnswer(new GenerationRequest("x", List.of(), null)))
        .isInstanceOfSatisfying(ApplicationFailure.class, f -> assertThat(f.getType()).isEqualTo("EmptyModelOutput"));
  }
}
