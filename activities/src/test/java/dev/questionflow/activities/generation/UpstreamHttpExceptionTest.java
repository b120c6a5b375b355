package dev.questionflow.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class UpstreamHttpExceptionTest {

  @Test
  void parsesRetryAfterSecondsAndDates() {
    Clock clock = Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);
    assertThat(UpstreamHttpException.parseRetryAfter("2", clock)).isEqualTo(Duration.ofSeconds(2));
    assertThat(UpstreamHttpException.parseRetryAfter("1.5", clock))
        .isEqualTo(Duration.ofMillis(1500));
    assertThat(UpstreamHttpException.parseRetryAfter("Wed, 01 Jan 2025 00:00:07 GMT", clock))
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(UpstreamHttpException.parseRetryAfter("soon", clock)).isNull();
    assertThat(UpstreamHttpException.parseRetryAfter(null, clock)).isNull();
  }
}
