package dev.questionflow.api.config;

import io.lettuce.core.api.StatefulRedisConnection;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoResponse;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Reachability of Temporal and Redis as health indicators ({@code /actuator/health/temporal}, {@code .../redis}).
 * The readiness group includes them (application.yml): an instance that cannot reach Temporal cannot accept a
 * question. Liveness does not: restarting the app would not bring Temporal or Redis back.
 */
@Configuration(proxyBeanMethods = false)
class HealthConfig {

  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

  @Bean
  HealthIndicator temporalHealthIndicator(WorkflowServiceStubs service) {
    return () -> {
      try {
        GetSystemInfoResponse info = service.blockingStub()
            .withDeadlineAfter(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
        return Health.up().withDetail("serverVersion", info.getServerVersion()).build();
      } catch (RuntimeException e) {
        return Health.down().withDetail("error", e.toString()).build();
      }
    };
  }

  @Bean
  HealthIndicator redisHealthIndicator(ObjectProvider<StatefulRedisConnection<String, String>> redis) {
    return () -> {
      StatefulRedisConnection<String, String> connection = redis.getIfAvailable();
      if (connection == null) {
        return Health.up().withDetail("mode", "in-memory stores (REDIS_URL is not set)").build();
      }
      try {
        String pong = connection.async().ping().get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return Health.up().withDetail("ping", pong).build();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        return Health.down().withDetail("error", e.toString()).build();
      }
    };
  }
}
