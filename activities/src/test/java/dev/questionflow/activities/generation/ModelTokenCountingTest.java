package dev.questionflow.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The tokens come from the model's own usage report: the fake's counts vary with the words. */
class ModelTokenCountingTest {

  private final FakeModelServer fake = FakeModelServer.start();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final OpenAiGenerationActivities activities =
      new OpenAiGenerationActivities(
          new ModelSettings(
              fake.baseUrl(), "k", "fake-model", Duration.ofSeconds(5), "Northwind Bank"),
          null,
          RateLimitPolicy.DEFAULT,
          DependencyBreakers.withSpecDefaults(),
          new UpstreamErrors(new SimpleMeterRegistry()),
          null,
          null,
          new Safeguards(
              Redactor.ALL_KINDS,
              PromptCanary.random(),
              new LinkAllowList(List.of("northwind.example"))),
          new ModelUsage(meters, Map.of("fake-model", new ModelUsage.Prices(1.0, 4.0))));

  @AfterEach
  void stop() {
    fake.close();
  }

  @Test
  void theResultCarriesTheReportedTokensAndTheMetricsCountEveryResponse() {
    fake.script(call -> Reply.text("Your card arrives within five working days."));
    GenerationResult shortOne =
        activities.generateAnswer(
            new GenerationRequest("When does my card come?", List.of(), null));
    GenerationResult longOne =
        activities.generateAnswer(
            new GenerationRequest(
                "When does my new debit card arrive after I ordered it online last week?",
                List.of(),
                null));
    int shortPrompt = FakeModelServer.promptTokens(fake.calls().get(0).body());
    int longPrompt = FakeModelServer.promptTokens(fake.calls().get(1).body());
    assertThat(longPrompt).isGreaterThan(shortPrompt); // counted, not a constant
    assertThat(shortOne.promptTokens()).isEqualTo(shortPrompt);
    assertThat(longOne.promptTokens()).isEqualTo(longPrompt);
    assertThat(shortOne.completionTokens()).isEqualTo(7);
    // priced at the configured prices (1 and 4 per million prompt and completion tokens)
    assertThat(shortOne.cost())
        .isCloseTo(
            (shortPrompt * 1.0 + 7 * 4.0) / 1_000_000, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(longOne.cost()).isGreaterThan(shortOne.cost());

    // rejected by the output checks after the model answered: paid for, so counted
    fake.script(call -> Reply.text("Please verify at https://northwind-login.evil.example/ now"));
    assertThatThrownBy(() -> activities.generateAnswer(new GenerationRequest("x", List.of(), null)))
        .isInstanceOf(ApplicationFailure.class);
    int rejectedPrompt = FakeModelServer.promptTokens(fake.calls().get(2).body());

    double prompt = shortPrompt + longPrompt + rejectedPrompt;
    double completion = 7 + 7 + 5;
    assertThat(tokens("prompt")).isEqualTo(prompt);
    assertThat(tokens("completion")).isEqualTo(completion);
    assertThat(meters.get("cs_model_cost").tag("model", "fake-model").counter().count())
        .isCloseTo(
            (prompt * 1.0 + completion * 4.0) / 1_000_000,
            org.assertj.core.data.Offset.offset(1e-12));
  }

  private double tokens(String kind) {
    return meters
        .get("cs_model_tokens")
        .tag("model", "fake-model")
        .tag("kind", kind)
        .counter()
        .count();
  }
}
