package dev.questionflow.activities.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType;
import java.time.Duration;

/**
 * The tunables of one circuit breaker, bound from {@code cs.resilience.defaults} and {@code
 * cs.resilience.breakers.<dependency>}. Every field may be null, meaning "inherit": a dependency's
 * settings are laid over the defaults, which are laid over {@link #SPEC} (see {@link #orElse}).
 *
 * @param slidingWindow length of the time-based sliding window the failure rate is computed over
 *     (whole seconds)
 * @param failureRateThreshold open when the failure rate in the window is at least this percentage
 * @param minimumCalls no decision before the window holds this many calls
 * @param waitInOpen how long the breaker stays OPEN before it lets trial calls through (HALF_OPEN)
 * @param permittedCallsInHalfOpen trial calls in HALF_OPEN before the breaker decides to close or
 *     reopen
 * @param reopenOnHalfOpenFailure true: any failure of a trial call reopens at once, so the breaker
 *     only closes after {@code permittedCallsInHalfOpen} consecutive successes (the SPEC's rule);
 *     false: resilience4j's own rule (close when the trial calls' failure rate is below the
 *     threshold)
 * @param slowCallDuration a call taking longer counts as slow (only matters with {@code
 *     slowCallRateThreshold < 100})
 * @param slowCallRateThreshold open when this percentage of calls is slow; 100 effectively disables
 *     it
 */
public record BreakerSettings(
    Duration slidingWindow,
    Float failureRateThreshold,
    Integer minimumCalls,
    Duration waitInOpen,
    Integer permittedCallsInHalfOpen,
    Boolean reopenOnHalfOpenFailure,
    Duration slowCallDuration,
    Float slowCallRateThreshold) {

  /**
   * The SPEC's field numbers: 60 s window, open above 50 % failures with at least 20 samples, open
   * for 30 s, close after 10 consecutive successful trial calls.
   *
   * <p>"Half-open lets about 5 % through": resilience4j's HALF_OPEN admits a fixed number of trial
   * calls, not a share of traffic, and rejects the rest until they have completed. 10 trial calls
   * is about 5 % of the ~200 calls a 20 requests/s instance group sends in the 10 s those trials
   * typically take, which is the approximation used here. The SPEC's gradual ramp after closing
   * (+10 % every 30 s) is not a breaker feature; it belongs to the adaptive rate limiter of the
   * model calls.
   */
  public static final BreakerSettings SPEC =
      new BreakerSettings(
          Duration.ofSeconds(60),
          50f,
          20,
          Duration.ofSeconds(30),
          10,
          true,
          Duration.ofSeconds(10),
          100f);

  /** Settings where every null field is taken from {@code fallback}. */
  public BreakerSettings orElse(BreakerSettings fallback) {
    if (fallback == null) {
      return this;
    }
    return new BreakerSettings(
        slidingWindow != null ? slidingWindow : fallback.slidingWindow,
        failureRateThreshold != null ? failureRateThreshold : fallback.failureRateThreshold,
        minimumCalls != null ? minimumCalls : fallback.minimumCalls,
        waitInOpen != null ? waitInOpen : fallback.waitInOpen,
        permittedCallsInHalfOpen != null
            ? permittedCallsInHalfOpen
            : fallback.permittedCallsInHalfOpen,
        reopenOnHalfOpenFailure != null
            ? reopenOnHalfOpenFailure
            : fallback.reopenOnHalfOpenFailure,
        slowCallDuration != null ? slowCallDuration : fallback.slowCallDuration,
        slowCallRateThreshold != null ? slowCallRateThreshold : fallback.slowCallRateThreshold);
  }

  /** A copy with another minimum number of calls (handy in tests). */
  public BreakerSettings withMinimumCalls(int calls) {
    return new BreakerSettings(
        slidingWindow,
        failureRateThreshold,
        calls,
        waitInOpen,
        permittedCallsInHalfOpen,
        reopenOnHalfOpenFailure,
        slowCallDuration,
        slowCallRateThreshold);
  }

  /** A copy with another number of trial calls in HALF_OPEN (handy in tests). */
  public BreakerSettings withPermittedCallsInHalfOpen(int calls) {
    return new BreakerSettings(
        slidingWindow,
        failureRateThreshold,
        minimumCalls,
        waitInOpen,
        calls,
        reopenOnHalfOpenFailure,
        slowCallDuration,
        slowCallRateThreshold);
  }

  /**
   * The immutable resilience4j config; null fields fall back to {@link #SPEC}. Which exceptions
   * count as failures is decided by the caller: {@link DependencyBreakers#call} records every
   * exception except those marked with {@link NotADependencyFailure}; the generation activity
   * reports its outcomes itself (see its comments).
   */
  public CircuitBreakerConfig toConfig() {
    BreakerSettings s = orElse(SPEC);
    int windowSeconds = (int) Math.max(1, s.slidingWindow.toSeconds());
    return CircuitBreakerConfig.custom()
        .slidingWindowType(SlidingWindowType.TIME_BASED)
        .slidingWindowSize(windowSeconds)
        .minimumNumberOfCalls(s.minimumCalls)
        .failureRateThreshold(s.failureRateThreshold)
        .waitDurationInOpenState(s.waitInOpen)
        .permittedNumberOfCallsInHalfOpenState(s.permittedCallsInHalfOpen)
        // OPEN -> HALF_OPEN happens on the first call after waitInOpen (no timer thread per
        // breaker)
        .automaticTransitionFromOpenToHalfOpenEnabled(false)
        .slowCallDurationThreshold(s.slowCallDuration)
        .slowCallRateThreshold(s.slowCallRateThreshold)
        .ignoreException(e -> e instanceof NotADependencyFailure)
        .writableStackTraceEnabled(false)
        .build();
  }

  /**
   * Marker for exceptions thrown through {@link DependencyBreakers#call} that say nothing about the
   * dependency's health (our own bad request, a validation error): they are neither failures nor
   * successes for the breaker.
   */
  public interface NotADependencyFailure {}
}
