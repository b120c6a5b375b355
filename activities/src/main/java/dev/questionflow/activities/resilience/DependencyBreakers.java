package dev.questionflow.activities.resilience;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One resilience4j circuit breaker per {@link Dependency}, built once from our own settings (Spring
 * Boot 4 has no resilience4j starter). Thread-safe; create one per application and share it.
 *
 * <p>Usage from another activity (e.g. the helpdesk webhook or Redis):
 *
 * <pre>{@code
 * try {
 *   return breakers.call(Dependency.HELPDESK, () -> post(ticket));   // counts success / failure
 * } catch (CallNotPermittedException open) {                         // breaker OPEN: no call was made
 *   errors.record(Dependency.HELPDESK, UpstreamErrors.Kind.CIRCUIT_OPEN);
 *   ...
 * } catch (RuntimeException e) {
 *   errors.record(Dependency.HELPDESK, e);                           // classified: timeout, unreachable, ...
 *   throw e;
 * }
 * }</pre>
 *
 * or, for full control, {@code breakers.breaker(Dependency.REDIS)} and resilience4j's own API
 * ({@code tryAcquirePermission / onSuccess / onError / releasePermission}).
 *
 * <p>Observability: resilience4j's tagged metrics ({@code
 * resilience4j_circuitbreaker_state{name=...}}, calls, failure rate) and a gauge {@code
 * cs_dependency_health{dependency}} with {@link #healthScore}. Every state transition is logged at
 * WARN.
 */
public final class DependencyBreakers {

  /** Micrometer name of the health gauge (Prometheus: {@code cs_dependency_health}). */
  public static final String HEALTH_GAUGE = "cs.dependency.health";

  private static final Logger log = LoggerFactory.getLogger(DependencyBreakers.class);

  private final CircuitBreakerRegistry registry;
  private final Map<Dependency, CircuitBreaker> breakers = new EnumMap<>(Dependency.class);
  private final Map<Dependency, BreakerSettings> settings = new EnumMap<>(Dependency.class);
  private final Map<Dependency, CircuitBreaker> ejections = new EnumMap<>(Dependency.class);

  /**
   * @param defaults {@code cs.resilience.defaults}, laid over {@link BreakerSettings#SPEC} (null =
   *     SPEC)
   * @param overrides {@code cs.resilience.breakers}, by {@link Dependency#id()}; each laid over the
   *     defaults
   * @param meters where the breaker metrics and health gauges go (null = not published)
   * @throws IllegalArgumentException for an override of an unknown dependency
   */
  public DependencyBreakers(
      BreakerSettings defaults, Map<String, BreakerSettings> overrides, MeterRegistry meters) {
    this(defaults, overrides, null, meters);
  }

  /**
   * The same, and the models' outlier ejection beside their breakers ({@code
   * cs.resilience.ejection}; null or 0 failures: none).
   */
  public DependencyBreakers(
      BreakerSettings defaults,
      Map<String, BreakerSettings> overrides,
      OutlierEjection ejection,
      MeterRegistry meters) {
    this(defaults, overrides, ejection, meters, Clock.systemUTC());
  }

  /** The same on {@code clock} (the ejections' durations; tests move it). */
  public DependencyBreakers(
      BreakerSettings defaults,
      Map<String, BreakerSettings> overrides,
      OutlierEjection ejection,
      MeterRegistry meters,
      Clock clock) {
    BreakerSettings base =
        defaults == null ? BreakerSettings.SPEC : defaults.orElse(BreakerSettings.SPEC);
    Map<Dependency, BreakerSettings> byDependency = new EnumMap<>(Dependency.class);
    if (overrides != null) {
      overrides.forEach((id, s) -> byDependency.put(Dependency.fromId(id), s));
    }
    this.registry = CircuitBreakerRegistry.of(base.toConfig());
    for (Dependency dependency : Dependency.values()) {
      BreakerSettings effective =
          byDependency.containsKey(dependency) ? byDependency.get(dependency).orElse(base) : base;
      settings.put(dependency, effective);
      CircuitBreaker breaker = registry.circuitBreaker(dependency.id(), effective.toConfig());
      logTransitions(breaker);
      if (ejection != null && ejection.enabled() && dependency.isModel()) {
        CircuitBreaker ejector =
            registry.circuitBreaker(dependency.id() + "-ejection", ejection.toConfig(clock));
        logTransitions(ejector);
        ejections.put(dependency, ejector);
      }
      if (Boolean.TRUE.equals(effective.reopenOnHalfOpenFailure())) {
        // The SPEC closes only after N consecutive successes. resilience4j evaluates the failure
        // rate of the N
        // trial calls instead; so any failure during HALF_OPEN reopens at once. The error event is
        // published before
        // the state machine handles the error, so the state seen here is the one the failed call
        // ran in.
        breaker
            .getEventPublisher()
            .onError(
                e -> {
                  if (breaker.getState() == State.HALF_OPEN) {
                    breaker.transitionToOpenState();
                  }
                });
      }
      breakers.put(dependency, breaker);
    }
    if (meters != null) {
      TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(registry).bindTo(meters);
      for (Dependency dependency : Dependency.values()) {
        Gauge.builder(HEALTH_GAUGE, this, b -> b.healthScore(dependency))
            .tag("dependency", dependency.id())
            .description(
                "1 - failure rate of the dependency's circuit breaker window; 0 while the breaker is open")
            .register(meters);
      }
    }
  }

  private static void logTransitions(CircuitBreaker breaker) {
    breaker
        .getEventPublisher()
        .onStateTransition(
            e ->
                log.warn(
                    "circuit breaker {}: {} -> {} (failure rate {}%, {} calls in window)",
                    e.getCircuitBreakerName(),
                    e.getStateTransition().getFromState(),
                    e.getStateTransition().getToState(),
                    breaker.getMetrics().getFailureRate(),
                    breaker.getMetrics().getNumberOfBufferedCalls()));
  }

  /** The model's outlier ejection ({@link OutlierEjection}), or null when it has none. */
  public CircuitBreaker ejection(Dependency dependency) {
    return ejections.get(dependency);
  }

  /** The SPEC's settings for every dependency, metrics in a private registry. */
  public static DependencyBreakers withSpecDefaults() {
    return new DependencyBreakers(BreakerSettings.SPEC, Map.of(), new SimpleMeterRegistry());
  }

  /**
   * The breaker of one dependency (resilience4j API: executeSupplier, tryAcquirePermission,
   * onError, ...).
   */
  public CircuitBreaker breaker(Dependency dependency) {
    return breakers.get(dependency);
  }

  /** The effective settings of one dependency's breaker. */
  public BreakerSettings settings(Dependency dependency) {
    return settings.get(dependency);
  }

  public CircuitBreakerRegistry registry() {
    return registry;
  }

  /**
   * Runs {@code call} through the dependency's breaker: a thrown exception counts as a failure
   * unless it implements {@link BreakerSettings.NotADependencyFailure}.
   *
   * @throws CallNotPermittedException when the breaker is OPEN (or HALF_OPEN with all trial calls
   *     taken); {@code call} was not run
   */
  public <T> T call(Dependency dependency, Supplier<T> call) {
    return breaker(dependency).executeSupplier(call);
  }

  public State state(Dependency dependency) {
    return breaker(dependency).getState();
  }

  /** True while calls are being rejected without trying (OPEN or FORCED_OPEN). */
  public boolean isOpen(Dependency dependency) {
    State state = state(dependency);
    return state == State.OPEN || state == State.FORCED_OPEN;
  }

  /**
   * How healthy the dependency looks, in [0, 1]: {@code 1 - failure rate} of the current window (1
   * while the window holds fewer than the minimum number of calls, so a few early failures do not
   * condemn it), 0.5 in HALF_OPEN (being probed) and 0 while OPEN. The workflow side may use it to
   * enter the ladder lower instead of paying timeouts.
   */
  public double healthScore(Dependency dependency) {
    CircuitBreaker breaker = breaker(dependency);
    return switch (breaker.getState()) {
      case OPEN, FORCED_OPEN -> 0.0;
      case HALF_OPEN -> 0.5;
      default -> {
        float failureRate = breaker.getMetrics().getFailureRate();
        yield failureRate < 0 ? 1.0 : Math.max(0.0, 1.0 - failureRate / 100.0);
      }
    };
  }

  /** What one breaker looks like now (for the health endpoint and logs). */
  public record Snapshot(
      Dependency dependency,
      State state,
      double healthScore,
      float failureRate,
      int bufferedCalls,
      int failedCalls,
      long notPermittedCalls) {}

  public Snapshot snapshot(Dependency dependency) {
    CircuitBreaker breaker = breaker(dependency);
    CircuitBreaker.Metrics m = breaker.getMetrics();
    return new Snapshot(
        dependency,
        breaker.getState(),
        healthScore(dependency),
        m.getFailureRate(),
        m.getNumberOfBufferedCalls(),
        m.getNumberOfFailedCalls(),
        m.getNumberOfNotPermittedCalls());
  }

  /** Snapshots of all breakers, in {@link Dependency} order. */
  public Map<Dependency, Snapshot> snapshots() {
    Map<Dependency, Snapshot> all = new LinkedHashMap<>();
    for (Dependency dependency : Dependency.values()) {
      all.put(dependency, snapshot(dependency));
    }
    return Collections.unmodifiableMap(all);
  }
}
