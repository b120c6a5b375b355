package dev.questionflow.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.workflows.generation.ModelFailures;
import org.junit.jupiter.api.Test;

class OutputChecksTest {

  private final OutputChecks checks = new OutputChecks(Redactor.ALL_KINDS);

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
  void theRestIsStrippedAndRedacted() {
    assertThat(checks.check(" 您的卡将在3-5个工作日内送达。 ")).isEqualTo("您的卡将在3-5个工作日内送达。");
    assertThat(checks.check("Line one.\nLine two\twith a tab."))
        .isEqualTo("Line one.\nLine two\twith a tab.");
    assertThat(checks.check("Mail me at a@b.io")).isEqualTo("Mail me at [EMAIL]");
  }
}
