package dev.questionflow.activities.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;

/**
 * Outlier ejection beside a model's SPEC breaker, as Envoy does it for a host: {@code
 * consecutiveFailures} failed calls in a row take the model out of rotation for {@code duration},
 * doubled at each ejection in a row up to {@code maxDuration}, then one trial call decides. The
 * SPEC's breaker (50 % of a 60 s window, at least 20 calls) is slow to see an outage that follows a
 * healthy minute: its window still holds the successes, so a model that answers nothing but 500s is
 * called about 40 more times per instance before it opens (77 failed calls in the benchmark's 30 s
 * outage). This one sees it after a handful. Built on a resilience4j breaker: a count-based window
 * of that many calls that opens at 100 % failures, with an exponential wait in OPEN.
 *
 * @param consecutiveFailures failed calls in a row that eject the model; 0 turns ejection off
 * @param duration the first ejection's length
 * @param maxDuration the longest ejection
 */
public record OutlierEjection(
    Integer consecutiveFailures, Duration duration, Duration maxDuration) {

  /** 5 failures in a row, 5 s out, doubling up to the SPEC breaker's 30 s. */
  public static final OutlierEjection DEFAULT =
      new OutlierEjection(5, Duration.ofSeconds(5), Duration.ofSeconds(30));

  /** Settings where every null field is taken from {@link #DEFAULT}. */
  public OutlierEjection orDefaults() {
    return new OutlierEjection(
        consecutiveFailures != null ? consecutiveFailures : DEFAULT.consecutiveFailures,
        duration != null ? duration : DEFAULT.duration,
        maxDuration != null ? maxDuration : DEFAULT.maxDuration);
  }

  public boolean enabled() {
    return orDefaults().consecutiveFailures > 0;
  }

  CircuitBreakerConfig toConfig(Clock clock) {
    OutlierEjection s = orDefaults();
    long first = Math.max(1, s.duration.toMillis());
    long max = Math.max(first, s.maxDuration.toMillis());
    return CircuitBreakerConfig.custom()
        .slidingWindowType(SlidingWindowType.COUNT_BASED)
        .slidingWindowSize(s.consecutiveFailures)
        .minimumNumberOfCalls(s.consecutiveFailures)
        .failureRateThreshold(100)
        .waitIntervalFunctionInOpenState(
            IntervalFunction.ofExponentialBackoff(
                Duration.ofMillis(first), 2.0, Duration.ofMillis(max)))
        .permittedNumberOfCallsInHalfOpenState(1)
        .automaticTransitionFromOpenToHalfOpenEnabled(false)
        .ignoreException(e -> e instanceof BreakerSettings.NotADependencyFailure)
        .writableStackTraceEnabled(false)
        .clock(clock)
        .build();
  }
}
