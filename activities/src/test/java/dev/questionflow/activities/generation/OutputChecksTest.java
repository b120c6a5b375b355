package dev.questionflow.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.workflows.generation.ModelFailures;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutputChecksTest {

  private static final String CANARY = "cnry-k7m2p9xq4tw8hz3r6vb5nd2f";

  private final OutputChecks checks =
      new OutputChecks(
          new Safeguards(
              Redactor.ALL_KINDS,
              PromptCanary.of(CANARY),
              new LinkAllowList(List.of("northwind.example"))));

  private void rejected(String answer, String type) {
    assertThatThrownBy(() -> checks.check(answer))
        .isInstanceOfSatisfying(
            OutputChecks.Rejected.class, r -> assertThat(r.type()).isEqualTo(type));
  }

  @Test
  void emptyAndGarbledAnswersAreRejected() {
    rejected("  \n ", ModelFailures.EMPTY_OUTPUT);
    rejected(null, ModelFailures.EMPTY_OUTPUT);
    rejected("\uFFFD\uFFFD\uFFFDab\uFFFD\u0001\u0002", ModelFailures.GARBLED_OUTPUT);
    rejected("12345 !!! ???", ModelFailures.GARBLED_OUTPUT);
  }

  @Test
  void promptLeaksAndForeignLinksAreRejectedWithoutQuotingTheAnswer() {
    assertThatThrownBy(() -> checks.check("The marker is " + CANARY))
        .isInstanceOfSatisfying(
            OutputChecks.Rejected.class,
            r -> {
              assertThat(r.type()).isEqualTo(ModelFailures.PROMPT_LEAK);
              assertThat(r.getMessage()).doesNotContain(CANARY);
            });
    assertThatThrownBy(
            () -> checks.check("Verify at https://evil.example/login?card=4111111111111111"))
        .isInstanceOfSatisfying(
            OutputChecks.Rejected.class,
            r -> {
              assertThat(r.type()).isEqualTo(ModelFailures.FOREIGN_LINK);
              assertThat(r.getMessage()).contains("evil.example").doesNotContain("4111");
            });
  }

  @Test
  void anAllowedLinkAndPersonalDataPassRedacted() {
    assertThat(checks.check("See https://www.northwind.example/cards or call 13812345678."))
        .isEqualTo("See https://www.northwind.example/cards or call [PHONE].");
  }

  @Test
  void theRestIsStrippedAndRedacted() {
    assertThat(checks.check(" 您的卡将在3-5个工作日内送达。 ")).isEqualTo("您的卡将在3-5个工作日内送达。");
    assertThat(checks.check("Line one.\nLine two\twith a tab."))
        .isEqualTo("Line one.\nLine two\twith a tab.");
    assertThat(checks.check("Mail me at a@b.io")).isEqualTo("Mail me at [EMAIL]");
  }
}
