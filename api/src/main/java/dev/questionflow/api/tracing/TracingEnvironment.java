package dev.questionflow.api.tracing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Tracing off ({@code cs.tracing.enabled}, TRACING_ENABLED, the default) leaves out Spring Boot's
 * tracing and OpenTelemetry auto-configuration altogether: no tracer, no SDK, no exporter thread,
 * and no tracing handler on the observations of every request. Boot's own switch ({@code
 * management.tracing.export.enabled}) only replaces the tracer with a no-op one.
 */
public class TracingEnvironment implements EnvironmentPostProcessor, Ordered {

  static final String SOURCE = "questionflow-tracing";

  /** What the OpenTelemetry starter brings (Spring Boot 4.0). */
  static final List<String> AUTO_CONFIGURATIONS =
      List.of(
          "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
          "org.springframework.boot.micrometer.tracing.autoconfigure.prometheus.PrometheusExemplarsAutoConfiguration",
          "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration",
          "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.otlp.OtlpTracingAutoConfiguration",
          "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.zipkin.ZipkinWithOpenTelemetryTracingAutoConfiguration",
          "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
          "org.springframework.boot.opentelemetry.autoconfigure.logging.OpenTelemetryLoggingAutoConfiguration",
          "org.springframework.boot.opentelemetry.autoconfigure.logging.otlp.OtlpLoggingAutoConfiguration");

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (enabled(environment)) {
      return;
    }
    List<String> excluded = new ArrayList<>();
    String configured = environment.getProperty("spring.autoconfigure.exclude", "");
    if (!configured.isBlank()) {
      excluded.addAll(Arrays.asList(configured.split(",")));
    }
    excluded.addAll(AUTO_CONFIGURATIONS);
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                SOURCE,
                Map.of(
                    "spring.autoconfigure.exclude",
                    String.join(",", excluded),
                    "management.tracing.export.enabled",
                    "false")));
  }

  static boolean enabled(ConfigurableEnvironment environment) {
    return environment.getProperty("cs.tracing.enabled", Boolean.class, false);
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
