package dev.questionflow.api.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.StandardEnvironment;

/**
 * Tracing off (the default) costs nothing: the whole app starts without a tracer, an OpenTelemetry
 * SDK, a span exporter or processor (its thread), Temporal's tracing interceptors or the Redis and
 * model-call tracing.
 */
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.faq.semantic-enabled=false",
      "cs.redis.url="
    })
class TracingOffTest {

  @Autowired ApplicationContext context;

  @Test
  void nothingOfTracingExists() {
    for (Class<?> type :
        new Class<?>[] {
          OpenTelemetry.class,
          SpanExporter.class,
          SpanProcessor.class,
          // the Temporal starter adds its OpenTracing interceptors exactly when this bean exists
          io.opentracing.Tracer.class,
          TracingConfig.ModelHttpTracing.class,
          io.lettuce.core.tracing.Tracing.class
        }) {
      assertThat(context.getBeanNamesForType(type)).as(type.getName()).isEmpty();
    }
    // Boot's stand-in when no tracing is configured: the no-op constant
    assertThat(context.getBeansOfType(io.micrometer.tracing.Tracer.class).values())
        .allMatch(tracer -> tracer == io.micrometer.tracing.Tracer.NOOP);
  }

  /** The names left out must be Spring Boot's: a renamed auto-configuration would come back. */
  @Test
  void theExcludedAutoConfigurationsExist() throws Exception {
    for (String name : TracingEnvironment.AUTO_CONFIGURATIONS) {
      Class.forName(name);
    }
    StandardEnvironment environment = new StandardEnvironment();
    new TracingEnvironment().postProcessEnvironment(environment, null);
    assertThat(environment.getProperty("spring.autoconfigure.exclude"))
        .contains(TracingEnvironment.AUTO_CONFIGURATIONS.get(0));
  }
}
