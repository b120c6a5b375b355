package dev.questionflow.api.config;

import dev.questionflow.activities.redis.LazyRedis;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoResponse;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Reachability of Temporal and Redis as health indicators ({@code /actuator/health/temporal},
 * {@code .../redis}). The readiness group includes them (application.yml): an instance that cannot
 * reach Temporal cannot accept a question. Liveness does not: restarting the app would not bring
 * Temporal or Redis back.
 */
@Configuration(proxyBeanMethods = false)
class HealthConfig {

  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

  /** Working, with a dependency down: see {@link #redisHealthIndicator}. */
  static final Status DEGRADED = new Status("DEGRADED", "answering without a dependency");

  @Bean
  HealthIndicator temporalHealthIndicator(WorkflowServiceStubs service) {
    return () -> {
      try {
        GetSystemInfoResponse info =
            service
                .blockingStub()
                .withDeadlineAfter(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
        return Health.up().withDetail("serverVersion", info.getServerVersion()).build();
      } catch (RuntimeException e) {
        return Health.down().withDetail("error", e.toString()).build();
      }
    };
  }

  /**
   * Redis: {@link #DEGRADED} when configured but not answering. Not DOWN: the service still answers
   * at the lower levels without it (its stores fall back or wait), so the readiness probe keeps the
   * instance in rotation (DEGRADED is mapped to HTTP 200 in application.yml) while saying what is
   * down.
   */
  @Bean
  HealthIndicator redisHealthIndicator(ObjectProvider<LazyRedis> redis) {
    return () -> {
      LazyRedis lazy = redis.getIfAvailable();
      if (lazy == null) {
        return Health.up().withDetail("mode", "in-memory stores (REDIS_URL is not set)").build();
      }
      try {
        return Health.up().withDetail("ping", lazy.get().ping()).build();
      } catch (RuntimeException e) {
        return Health.status(DEGRADED)
            .withDetail("error", e.toString())
            .withDetail(
                "meanwhile",
                "sessions and queue positions per instance, tickets wait, limits per instance")
            .build();
      }
    };
  }
}
