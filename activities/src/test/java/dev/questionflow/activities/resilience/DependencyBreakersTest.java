package dev.questionflow.activities.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.resilience.UpstreamErrors.Kind;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DependencyBreakersTest {

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @Test
  void specDefaultsAreTheFieldNumbers() {
    CircuitBreakerConfig config =
        DependencyBreakers.withSpecDefaults().breaker(Dependency.REDIS).getCircuitBreakerConfig();

    assertThat(config.getSlidingWindowType()).isEqualTo(SlidingWindowType.TIME_BASED);
    assertThat(config.getSlidingWindowSize()).isEqualTo(60);
    assertThat(config.getFailureRateThreshold()).isEqualTo(50f);
    assertThat(config.getMinimumNumberOfCalls()).isEqualTo(20);
    assertThat(config.getPermittedNumberOfCallsInHalfOpenState()).isEqualTo(10);
    assertThat(config.getWaitIntervalFunctionInOpenState().apply(1)).isEqualTo(30_000L);
  }

  @Test
  void perDependencySettingsOverrideTheDefaultsWhichOverrideTheSpec() {
    BreakerSettings defaults = new BreakerSettings(null, null, 10, null, null, null, null, null);
    BreakerSettings helpdesk =
        new BreakerSettings(
            Duration.ofSeconds(120), 25f, null, Duration.ofSeconds(5), null, null, null, null);

    DependencyBreakers breakers =
        new DependencyBreakers(defaults, Map.of("helpdesk", helpdesk), meters);

    CircuitBreakerConfig h = breakers.breaker(Dependency.HELPDESK).getCircuitBreakerConfig();
    assertThat(h.getSlidingWindowSize()).isEqualTo(120);
    assertThat(h.getFailureRateThreshold()).isEqualTo(25f);
    assertThat(h.getMinimumNumberOfCalls()).as("from the defaults").isEqualTo(10);
    assertThat(h.getPermittedNumberOfCallsInHalfOpenState()).as("from the SPEC").isEqualTo(10);
    CircuitBreakerConfig redis = breakers.breaker(Dependency.REDIS).getCircuitBreakerConfig();
    assertThat(redis.getFailureRateThreshold()).isEqualTo(50f);
    assertThat(redis.getMinimumNumberOfCalls()).isEqualTo(10);
    assertThat(breakers.settings(Dependency.HELPDESK).waitInOpen())
        .isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void anUnknownDependencyInTheConfigurationFailsTheStart() {
    assertThatThrownBy(
            () -> new DependencyBreakers(null, Map.of("helpdsk", BreakerSettings.SPEC), meters))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("helpdsk");
  }

  @Test
  void callCountsFailuresOpensAndThenRejectsWithoutRunning() {
    DependencyBreakers breakers =
        new DependencyBreakers(BreakerSettings.SPEC.withMinimumCalls(4), Map.of(), meters);
    AtomicInteger runs = new AtomicInteger();

    for (int i = 0; i < 4; i++) {
      assertThatThrownBy(
              () ->
                  breakers.call(
                      Dependency.HELPDESK,
                      () -> {
                        runs.incrementAndGet();
                        throw new IllegalStateException("502 from helpdesk");
                      }))
          .isInstanceOf(IllegalStateException.class);
    }

    assertThat(breakers.state(Dependency.HELPDESK)).isEqualTo(State.OPEN);
    assertThat(breakers.isOpen(Dependency.HELPDESK)).isTrue();
    assertThatThrownBy(() -> breakers.call(Dependency.HELPDESK, runs::incrementAndGet))
        .isInstanceOf(CallNotPermittedException.class);
    assertThat(runs).hasValue(4);
    assertThat(breakers.state(Dependency.REDIS)).isEqualTo(State.CLOSED);
  }

  /** Our own mistake, e.g. a rejected payload, says nothing about the dependency's health. */
  static final class OurFault extends RuntimeException
      implements BreakerSettings.NotADependencyFailure {}

  @Test
  void notADependencyFailureIsNotCounted() {
    DependencyBreakers breakers =
        new DependencyBreakers(BreakerSettings.SPEC.withMinimumCalls(4), Map.of(), meters);

    for (int i = 0; i < 6; i++) {
      assertThatThrownBy(
              () ->
                  breakers.call(
                      Dependency.REDIS,
                      () -> {
                        throw new OurFault();
                      }))
          .isInstanceOf(OurFault.class);
    }

    assertThat(breakers.state(Dependency.REDIS)).isEqualTo(State.CLOSED);
    assertThat(breakers.breaker(Dependency.REDIS).getMetrics().getNumberOfFailedCalls()).isZero();
  }

  @Test
  void healthScoreFollowsTheFailureRateAndIsAGauge() {
    DependencyBreakers breakers =
        new DependencyBreakers(BreakerSettings.SPEC.withMinimumCalls(4), Map.of(), meters);
    assertThat(breakers.healthScore(Dependency.EMBEDDING)).as("no evidence yet").isEqualTo(1.0);

    breakers.call(Dependency.EMBEDDING, () -> "ok");
    breakers.call(Dependency.EMBEDDING, () -> "ok");
    breakers.call(Dependency.EMBEDDING, () -> "ok");
    assertThatThrownBy(
        () ->
            breakers.call(
                Dependency.EMBEDDING,
                () -> {
                  throw new IllegalStateException("down");
                }));

    assertThat(breakers.healthScore(Dependency.EMBEDDING)).isEqualTo(0.75);
    assertThat(
            meters
                .get(DependencyBreakers.HEALTH_GAUGE)
                .tag("dependency", "embedding")
                .gauge()
                .value())
        .isEqualTo(0.75);
    assertThat(breakers.snapshot(Dependency.EMBEDDING).failedCalls()).isEqualTo(1);
    assertThat(meters.find("resilience4j.circuitbreaker.state").tag("name", "embedding").gauges())
        .isNotEmpty();

    breakers.breaker(Dependency.EMBEDDING).transitionToForcedOpenState();
    assertThat(breakers.healthScore(Dependency.EMBEDDING)).isZero();
    assertThat(breakers.snapshots()).containsOnlyKeys(Dependency.values());
  }

  @Test
  void upstreamErrorsClassifyTransportFailuresAndCount() {
    UpstreamErrors errors = new UpstreamErrors(meters);

    assertThat(
            errors.record(
                Dependency.REDIS, new RuntimeException(new SocketTimeoutException("read"))))
        .isEqualTo(Kind.TIMEOUT);
    assertThat(
            errors.record(Dependency.REDIS, new RuntimeException(new ConnectException("refused"))))
        .isEqualTo(Kind.UNREACHABLE);
    assertThat(UpstreamErrors.classify(new IllegalStateException("?"))).isEqualTo(Kind.OTHER);
    errors.record(Dependency.REDIS, Kind.TIMEOUT);

    assertThat(errors.count(Dependency.REDIS, Kind.TIMEOUT)).isEqualTo(2);
    assertThat(
            meters
                .get(UpstreamErrors.METRIC)
                .tags("dependency", "redis", "kind", "unreachable")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(Dependency.fromId("backup-model")).isEqualTo(Dependency.BACKUP_MODEL);
    // as an environment variable binds it (CS_RESILIENCE_BREAKERS_PRIMARYMODEL_WAITINOPEN)
    assertThat(Dependency.fromId("primarymodel")).isEqualTo(Dependency.PRIMARY_MODEL);
  }
}
