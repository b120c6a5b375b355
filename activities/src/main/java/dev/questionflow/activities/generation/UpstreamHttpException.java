package dev.questionflow.activities.generation;

import dev.langchain4j.exception.HttpException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * A non-2xx answer of the model endpoint that, unlike langchain4j's own {@link HttpException},
 * keeps the {@code Retry-After} header. It is still an {@code HttpException}, so langchain4j maps
 * it by status code as usual (429 -> RateLimitException, ...) and keeps it as the cause, where
 * {@link ModelErrors} finds it.
 */
public class UpstreamHttpException extends HttpException {

  private final transient Duration retryAfter;

  public UpstreamHttpException(int statusCode, String body, Duration retryAfter) {
    super(statusCode, body);
    this.retryAfter = retryAfter;
  }

  /** The server's Retry-After, when it sent a parsable one. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /**
   * Parses a Retry-After value: delay-seconds ("2", also tolerating fractions like "1.5" that some
   * gateways send) or an HTTP-date (RFC 1123), relative to {@code clock}. Null for a missing or
   * unparsable value; never negative.
   */
  static Duration parseRetryAfter(String value, Clock clock) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String v = value.strip();
    try {
      double seconds = Double.parseDouble(v);
      if (Double.isNaN(seconds) || seconds < 0) {
        return null;
      }
      return Duration.ofMillis((long) Math.ceil(seconds * 1000));
    } catch (NumberFormatException notSeconds) {
      try {
        ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
        Duration until = Duration.between(clock.instant(), at.toInstant());
        return until.isNegative() ? Duration.ZERO : until;
      } catch (DateTimeParseException notADate) {
        return null;
      }
    }
  }
}
