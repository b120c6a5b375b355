package dev.questionflow.activities.generation;

import java.time.Duration;

/**
 * How a 429 is retried.
 *
 * @param defaultDelay the next retry delay when the server sent no (parsable) Retry-After
 * @param maxDelay a Retry-After longer than this is not waited for: the failure is made
 *     non-retryable so the question degrades at once (the whole chain has about 30 s; waiting a
 *     minute for the model helps nobody)
 */
public record RateLimitPolicy(Duration defaultDelay, Duration maxDelay) {

  public static final RateLimitPolicy DEFAULT =
      new RateLimitPolicy(Duration.ofSeconds(1), Duration.ofSeconds(5));

  public RateLimitPolicy {
    defaultDelay = defaultDelay == null ? DEFAULT_DELAY : defaultDelay;
    maxDelay = maxDelay == null ? MAX_DELAY : maxDelay;
  }

  private static final Duration DEFAULT_DELAY = Duration.ofSeconds(1);
  private static final Duration MAX_DELAY = Duration.ofSeconds(5);
}
