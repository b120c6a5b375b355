package dev.questionflow.api.config;

import dev.questionflow.activities.generation.ModelUsage;
import dev.questionflow.activities.outcome.InMemoryOutcomeStream;
import dev.questionflow.activities.outcome.OutcomeInterceptor;
import dev.questionflow.activities.outcome.OutcomeStream;
import dev.questionflow.activities.outcome.OutcomeWriter;
import dev.questionflow.activities.outcome.RedisOutcomeStream;
import dev.questionflow.activities.redis.LazyRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.spring.boot.TemporalOptionsCustomizer;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One redacted record per finished question ({@code cs.outcomes}): a Redis Stream with REDIS_URL,
 * else the last records in process memory; and the models' token counts and cost as metrics.
 */
@Configuration(proxyBeanMethods = false)
class OutcomesConfig {

  private static final Logger log = LoggerFactory.getLogger(OutcomesConfig.class);

  @Bean
  ModelUsage modelUsage(MeterRegistry meters, OutcomesProperties properties) {
    Map<String, ModelUsage.Prices> prices = new LinkedHashMap<>();
    properties
        .prices()
        .forEach(
            (model, price) ->
                prices.put(
                    model,
                    new ModelUsage.Prices(price.promptPerMillion(), price.completionPerMillion())));
    return new ModelUsage(meters, prices);
  }

  @Bean
  OutcomeStream outcomeStream(ObjectProvider<LazyRedis> redis, OutcomesProperties properties) {
    LazyRedis lazy = redis.getIfAvailable();
    if (lazy != null) {
      log.info(
          "outcome stream: Redis {} (MAXLEN ~{}, retention {}){}",
          RedisOutcomeStream.KEY,
          properties.maxLength(),
          properties.retention(),
          properties.enabled() ? "" : ", DISABLED (cs.outcomes.enabled false)");
      return new RedisOutcomeStream(
          lazy, properties.maxLength(), properties.retention(), Clock.systemUTC());
    }
    log.warn(
        "REDIS_URL is not set: outcome records are kept in process memory (the last {}), lost when this"
            + " process stops and not readable by bin/outcomes.",
        Math.min(properties.maxLength(), 10_000));
    return new InMemoryOutcomeStream((int) Math.min(properties.maxLength(), 10_000));
  }

  // cs.outcomes.enabled=false: no writer thread and no interceptor at all (the stream bean stays
  // for tools that read it)
  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(name = "cs.outcomes.enabled", havingValue = "true", matchIfMissing = true)
  OutcomeWriter outcomeWriter(
      OutcomeStream stream, OutcomesProperties properties, MeterRegistry meters) {
    return new OutcomeWriter(stream, properties.queueCapacity(), meters);
  }

  /** Every worker's workflows hand their finished question's record to the writer. */
  @Bean
  @ConditionalOnProperty(name = "cs.outcomes.enabled", havingValue = "true", matchIfMissing = true)
  TemporalOptionsCustomizer<WorkerFactoryOptions.Builder> outcomeRecording(OutcomeWriter writer) {
    return options -> {
      List<WorkerInterceptor> interceptors = new ArrayList<>();
      WorkerInterceptor[] configured = options.build().getWorkerInterceptors();
      if (configured != null) {
        interceptors.addAll(List.of(configured));
      }
      interceptors.add(new OutcomeInterceptor(writer::submit));
      return options.setWorkerInterceptors(interceptors.toArray(new WorkerInterceptor[0]));
    };
  }
}
