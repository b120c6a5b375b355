package dev.questionflow.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.workflows.generation.ModelFailures;
import org.junit.jupiter.api.Test;

class RedactorTest {

  @Test
  void redactsLuhnValidCardNumbersInAnyGrouping() {
    assertThat(Redactor.redact("card 4111111111111111 ok"))
        .isEqualTo("card " + Redactor.CARD + " ok");
    assertThat(Redactor.redact("card 4111 1111 1111 1111."))
        .isEqualTo("card " + Redactor.CARD + ".");
    assertThat(Redactor.redact("amex 3782-822463-10005")).isEqualTo("amex " + Redactor.CARD);
    assertThat(Redactor.redact("card 5500 0000 0000 0004 exp 12 27"))
        .startsWith("card " + Redactor.CARD + " exp");
  }

  @Test
  void keepsDigitRunsThatAreNotCards() {
    // 16 digits failing Luhn is not a card (it is still long enough to be treated as phone-shaped
    // only if formatted)
    assertThat(Redactor.luhnValid("4111111111111112")).isFalse();
    assertThat(Redactor.redact("Cards arrive within 3-5 working days."))
        .isEqualTo("Cards arrive within 3-5 working days.");
    assertThat(Redactor.redact("The fee is 2.5% or 1000 EUR, since 2024-05-01."))
        .isEqualTo("The fee is 2.5% or 1000 EUR, since 2024-05-01.");
  }

  @Test
  void redactsEmailAddresses() {
    assertThat(Redactor.redact("write to jane.doe+bank@mail.example.co.uk please"))
        .isEqualTo("write to " + Redactor.EMAIL + " please");
  }

  @Test
  void redactsPhoneNumbers() {
    assertThat(Redactor.redact("call +44 20 7946 0958 now"))
        .isEqualTo("call " + Redactor.PHONE + " now");
    assertThat(Redactor.redact("call (555) 123-4567")).isEqualTo("call " + Redactor.PHONE);
    assertThat(Redactor.redact("call 13812345678")).isEqualTo("call " + Redactor.PHONE);
    assertThat(Redactor.redact("ref 1234567")).isEqualTo("ref 1234567");
  }

  @Test
  void outputChecksRejectEmptyAndGarbledAndRedactTheRest() {
    assertThatThrownBy(() -> OutputChecks.check("  \n "))
        .isInstanceOfSatisfying(
            OutputChecks.Rejected.class,
            r -> assertThat(r.type()).isEqualTo(ModelFailures.EMPTY_OUTPUT));
    assertThatThrownBy(() -> OutputChecks.check(null))
        .isInstanceOfSatisfying(
            OutputChecks.Rejected.class,
            r -> assertThat(r.type()).isEqualTo(ModelFailures.EMPTY_OUTPUT));
    assertThatThrownBy(() -> OutputChecks.check("\uFFFD\uFFFD\uFFFDab\uFFFD\u0001\u0002"))
        .isInstanceOfSatisfying(
            OutputChecks.Rejected.class,
            r -> assertThat(r.type()).isEqualTo(ModelFailures.GARBLED_OUTPUT));
    assertThatThrownBy(() -> OutputChecks.check("12345 !!! ???"))
        .isInstanceOfSatisfying(
            OutputChecks.Rejected.class,
            r -> assertThat(r.type()).isEqualTo(ModelFailures.GARBLED_OUTPUT));

    assertThat(OutputChecks.check(" 您的卡将在3-5个工作日内送达。 ")).isEqualTo("您的卡将在3-5个工作日内送达。");
    assertThat(OutputChecks.check("Line one.\nLine two\twith a tab."))
        .isEqualTo("Line one.\nLine two\twith a tab.");
    assertThat(OutputChecks.check("Mail me at a@b.io")).isEqualTo("Mail me at " + Redactor.EMAIL);
  }

  @Test
  void parsesRetryAfterSecondsAndDates() {
    java.time.Clock clock =
        java.time.Clock.fixed(
            java.time.Instant.parse("2025-01-01T00:00:00Z"), java.time.ZoneOffset.UTC);
    assertThat(UpstreamHttpException.parseRetryAfter("2", clock))
        .isEqualTo(java.time.Duration.ofSeconds(2));
    assertThat(UpstreamHttpException.parseRetryAfter("1.5", clock))
        .isEqualTo(java.time.Duration.ofMillis(1500));
    assertThat(UpstreamHttpException.parseRetryAfter("Wed, 01 Jan 2025 00:00:07 GMT", clock))
        .isEqualTo(java.time.Duration.ofSeconds(7));
    assertThat(UpstreamHttpException.parseRetryAfter("soon", clock)).isNull();
    assertThat(UpstreamHttpException.parseRetryAfter(null, clock)).isNull();
  }
}
