package dev.questionflow.api.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.instrumentation.javahttpclient.JavaHttpClientTelemetry;
import io.opentelemetry.opentracingshim.OpenTracingShim;
import java.net.http.HttpClient;
import java.util.function.UnaryOperator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One trace per question, from the HTTP accept to the model's HTTP call and Redis (docs/runbook.md
 * "Traces"). Spring Boot's OpenTelemetry support makes the SDK, the OTLP exporter and the spans of
 * the HTTP requests (Micrometer Tracing); this adds the rest on the same {@link OpenTelemetry}:
 *
 * <ul>
 *   <li>Temporal: the Spring Boot starter adds the SDK's OpenTracing client and worker interceptors
 *       when an OpenTracing {@link io.opentracing.Tracer} bean exists (StartWorkflow, RunWorkflow,
 *       StartActivity, RunActivity spans, the context carried in the Temporal headers); the OTel
 *       shim makes it OpenTelemetry, and the running activity's span the current OTel context, so
 *       its log lines carry its traceId;
 *   <li>the model's calls: OTel's instrumentation of the JDK client (a client span, traceparent);
 *   <li>Redis: a span per command ({@link LettuceTracing}).
 * </ul>
 *
 * Off (the default): neither this nor Boot's tracing exists ({@link TracingEnvironment}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "cs.tracing.enabled", havingValue = "true")
public class TracingConfig {

  /** Picked up by the Temporal starter (RootNamespaceAutoConfiguration). */
  @Bean
  io.opentracing.Tracer temporalOpenTracingTracer(OpenTelemetry openTelemetry) {
    return OpenTracingShim.createTracerShim(openTelemetry);
  }

  @Bean
  ModelHttpTracing modelHttpTracing(OpenTelemetry openTelemetry) {
    JavaHttpClientTelemetry telemetry = JavaHttpClientTelemetry.create(openTelemetry);
    return new ModelHttpTracing(telemetry::newHttpClient);
  }

  @Bean
  io.lettuce.core.tracing.Tracing lettuceTracing(OpenTelemetry openTelemetry) {
    return new LettuceTracing(openTelemetry);
  }

  /** Wraps the model client's JDK client; present only with tracing on. */
  public record ModelHttpTracing(UnaryOperator<HttpClient> wrap) {}
}
