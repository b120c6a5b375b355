package dev.questionflow.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.generation.ModelUsage;
import dev.questionflow.activities.outcome.OutcomeWriter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.spring.boot.TemporalOptionsCustomizer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code cs.outcomes.enabled}: off means no writer thread and no worker interceptor. */
class OutcomesConfigTest {

  @EnableConfigurationProperties(OutcomesProperties.class)
  static class Properties {}

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withUserConfiguration(Properties.class, OutcomesConfig.class)
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

  @Test
  void recordsByDefault() {
    runner.run(
        context -> {
          assertThat(context).hasSingleBean(OutcomeWriter.class);
          assertThat(context).hasSingleBean(TemporalOptionsCustomizer.class);
          assertThat(context).hasSingleBean(ModelUsage.class);
        });
  }

  @Test
  void disabledCreatesNoWriterNorInterceptorButKeepsTheTokenMetrics() {
    runner
        .withPropertyValues("cs.outcomes.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(OutcomeWriter.class);
              assertThat(context).doesNotHaveBean(TemporalOptionsCustomizer.class);
              assertThat(context).hasSingleBean(ModelUsage.class);
            });
  }
}
