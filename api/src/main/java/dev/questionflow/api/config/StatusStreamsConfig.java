package dev.questionflow.api.config;

import dev.questionflow.activities.redis.LazyRedis;
import dev.questionflow.activities.status.InMemoryStatusStore;
import dev.questionflow.activities.status.RedisStatusStore;
import dev.questionflow.activities.status.StatusInterceptor;
import dev.questionflow.activities.status.StatusPublisher;
import dev.questionflow.activities.status.StatusStore;
import dev.questionflow.workflows.codec.SealedText;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.spring.boot.TemporalOptionsCustomizer;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Each question's changes published once, for the event streams and status reads of every instance
 * (docs/runbook.md, "Status streams"): the store (Redis, else process memory), the workers'
 * interceptor and its publisher thread.
 */
@Configuration(proxyBeanMethods = false)
class StatusStreamsConfig {

  private static final Logger log = LoggerFactory.getLogger(StatusStreamsConfig.class);

  @Bean(destroyMethod = "close")
  StatusStore statusStore(
      ObjectProvider<LazyRedis> redis,
      SealedText sealed,
      CsProperties properties,
      StatusStreamsProperties streams) {
    LazyRedis lazy = redis.getIfAvailable();
    if (lazy != null) {
      log.info(
          "status streams: Redis (cs:status:{{id}} keys kept {}, channels cs:status:changes and"
              + " cs:lane:changes){}",
          streams.keyTtl(),
          streams.enabled() ? "" : ", DISABLED (cs.status-streams.enabled false): streams poll");
      return new RedisStatusStore(
          lazy, sealed, streams.keyTtl(), properties.redis().retryInterval(), Clock.systemUTC());
    }
    log.warn(
        "REDIS_URL is not set: question statuses for event streams are kept in process memory (the"
            + " last 100000), seen by this instance's streams only.");
    return new InMemoryStatusStore(100_000, streams.keyTtl(), Clock.systemUTC());
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(
      name = "cs.status-streams.enabled",
      havingValue = "true",
      matchIfMissing = true)
  StatusPublisher statusPublisher(
      StatusStore store,
      StatusStreamsProperties streams,
      CsProperties properties,
      MeterRegistry meters) {
    return new StatusPublisher(
        store, streams.queueCapacity(), properties.redis().retryInterval(), meters);
  }

  /** Every worker's question workflows publish their status at each visible change. */
  @Bean
  @ConditionalOnProperty(
      name = "cs.status-streams.enabled",
      havingValue = "true",
      matchIfMissing = true)
  TemporalOptionsCustomizer<WorkerFactoryOptions.Builder> statusPublishing(
      StatusPublisher publisher) {
    return options -> {
      List<WorkerInterceptor> interceptors = new ArrayList<>();
      WorkerInterceptor[] configured = options.build().getWorkerInterceptors();
      if (configured != null) {
        interceptors.addAll(List.of(configured));
      }
      interceptors.add(new StatusInterceptor(publisher::submit, System::currentTimeMillis));
      return options.setWorkerInterceptors(interceptors.toArray(new WorkerInterceptor[0]));
    };
  }
}
