package dev.questionflow.api.config;

import dev.questionflow.activities.resilience.Dependency;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.OutlierEjection;
import dev.questionflow.activities.resilience.UpstreamErrors;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The circuit breakers per dependency ({@code cs.resilience}), built once at start (Spring Boot 4
 * has no resilience4j starter), and the upstream error counter. Inject {@link DependencyBreakers}
 * and {@link UpstreamErrors} wherever a dependency is called.
 */
@Configuration(proxyBeanMethods = false)
class ResilienceConfig {

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(ResilienceConfig.class);

  @Bean
  DependencyBreakers dependencyBreakers(CsProperties properties, MeterRegistry meters) {
    CsProperties.Resilience resilience = properties.resilience();
    DependencyBreakers breakers =
        resilience == null
            ? new DependencyBreakers(null, Map.of(), OutlierEjection.DEFAULT, meters)
            : new DependencyBreakers(
                resilience.defaults(),
                resilience.breakers(),
                resilience.ejection() == null ? OutlierEjection.DEFAULT : resilience.ejection(),
                meters);
    if (properties.drills() != null && properties.drills().down() != null) {
      for (String id : properties.drills().down()) {
        if (id == null || id.isBlank() || RETRIEVAL_DRILL.equals(id.strip())) {
          continue; // not a breaker: see ActivitiesConfig.retrievalActivities
        }
        breakers.breaker(Dependency.fromId(id.strip())).transitionToForcedOpenState();
        log.warn(
            "DRILL: dependency {} is forced down (cs.drills.down); its breaker stays FORCED_OPEN",
            id);
      }
    }
    return breakers;
  }

  static final String RETRIEVAL_DRILL = "retrieval";

  @Bean
  UpstreamErrors upstreamErrors(MeterRegistry meters) {
    return new UpstreamErrors(meters);
  }

  /**
   * {@code /actuator/health/dependencies}: every breaker's state and health score. Informational
   * only: it always reports UP (and is in no probe group), because an open model breaker is what
   * the degradation ladder is for; it must not take the instance out of rotation.
   */
  @Bean
  HealthIndicator dependenciesHealthIndicator(DependencyBreakers breakers) {
    return () -> {
      Map<String, Object> details = new LinkedHashMap<>();
      List<String> degraded = new ArrayList<>();
      breakers
          .snapshots()
          .forEach(
              (dependency, s) -> {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("state", s.state().name());
                one.put("healthScore", Math.round(s.healthScore() * 1000) / 1000.0);
                if (s.failureRate() >= 0) { // -1 = fewer calls in the window than the minimum
                  one.put("failureRate", s.failureRate());
                }
                one.put("bufferedCalls", s.bufferedCalls());
                one.put("failedCalls", s.failedCalls());
                one.put("notPermittedCalls", s.notPermittedCalls());
                details.put(dependency.id(), one);
                if (s.healthScore() < 1.0) {
                  degraded.add(dependency.id());
                }
              });
      return Health.up().withDetail("degraded", degraded).withDetails(details).build();
    };
  }
}
