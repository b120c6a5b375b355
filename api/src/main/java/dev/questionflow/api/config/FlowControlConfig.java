package dev.questionflow.api.config;

import dev.questionflow.activities.lane.BucketLaneThrottle;
import dev.questionflow.activities.lane.InMemoryLaneLedger;
import dev.questionflow.activities.lane.LaneGate;
import dev.questionflow.activities.lane.LaneLedger;
import dev.questionflow.activities.lane.LaneLedgerActivities;
import dev.questionflow.activities.lane.LaneRateController;
import dev.questionflow.activities.lane.LaneRates;
import dev.questionflow.activities.lane.LaneThrottle;
import dev.questionflow.activities.lane.LocalBuckets;
import dev.questionflow.activities.lane.RedisBuckets;
import dev.questionflow.activities.lane.RedisLaneLedger;
import dev.questionflow.activities.lane.TemporalQueueRateApplier;
import dev.questionflow.activities.redis.LazyRedis;
import dev.questionflow.activities.redis.RedisOrMemory;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.activities.status.LaneChangeNotices;
import dev.questionflow.activities.status.StatusStore;
import io.github.bucket4j.TimeMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.spring.boot.WorkerOptionsCustomizer;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

/**
 * Model lanes: the shared ledger (queue positions, call statistics, current rate), the gate around
 * each model call that keeps it current and throttles, the workflow's lane activities, and the
 * adaptive rate controller.
 */
@Configuration(proxyBeanMethods = false)
class FlowControlConfig {

  private static final Logger log = LoggerFactory.getLogger(FlowControlConfig.class);

  /**
   * Queue positions and call statistics: Redis (shared), and this instance's memory while Redis is
   * down.
   */
  @Bean
  LaneLedger laneLedger(
      ObjectProvider<LazyRedis> redis,
      CsProperties properties,
      DependencyBreakers breakers,
      UpstreamErrors errors,
      StatusStore statuses,
      StatusStreamsProperties streams) {
    LaneLedger ledger = ledger(redis, properties, breakers, errors);
    // the instances streaming waiting questions refresh their positions when a line changes
    return streams.enabled() ? LaneChangeNotices.of(ledger, statuses::laneChanged) : ledger;
  }

  private static LaneLedger ledger(
      ObjectProvider<LazyRedis> redis,
      CsProperties properties,
      DependencyBreakers breakers,
      UpstreamErrors errors) {
    InMemoryLaneLedger memory = new InMemoryLaneLedger(Clock.systemUTC());
    LazyRedis lazy = redis.getIfAvailable();
    if (lazy != null) {
      return RedisOrMemory.of(
          LaneLedger.class,
          new RedisLaneLedger(
              lazy,
              Clock.systemUTC(),
              properties.flowControl().staleEntryAfter(),
              // under twice the chain budget even between two sweeps: what is older than that
              // never counts as a started call
              properties.ladder().chainBudget().multipliedBy(2).minus(SWEEP_EVERY.multipliedBy(2))),
          memory,
          breakers,
          errors);
    }
    log.warn(
        "REDIS_URL is not set: queue positions and the adaptive rate are per instance (in-memory lane ledger)");
    return memory;
  }

  /**
   * Smooths each model lane's calls to its rate (see {@link BucketLaneThrottle}); shared through
   * Redis if set.
   */
  @Bean
  LaneThrottle laneThrottle(
      ObjectProvider<LazyRedis> redis, CsProperties properties, MeterRegistry meters) {
    LazyRedis lazy = redis.getIfAvailable();
    RedisBuckets buckets = null;
    if (lazy != null) {
      buckets =
          new RedisBuckets(
              lazy.connector(),
              properties.flowControl().throttleRedisTimeout(),
              TimeMeter.SYSTEM_MILLISECONDS);
      buckets.connect(); // in the background: local buckets until it is connected
    }
    return new BucketLaneThrottle(
        buckets, new LocalBuckets(TimeMeter.SYSTEM_MILLISECONDS, 1000), meters);
  }

  /**
   * Each lane worker's task-queue rate limit: the lane's quota with the server's headroom ({@link
   * LaneRates}), the same the adaptive controller applies, so the limit does not depend on whether
   * the controller has run yet.
   */
  @Bean
  WorkerOptionsCustomizer laneServerLimits(CsProperties properties) {
    return (builder, workerName, taskQueue) -> {
      properties.lanes().values().stream()
          .filter(lane -> lane.taskQueue().equals(taskQueue))
          .findFirst()
          .ifPresent(
              lane ->
                  builder.setMaxTaskQueueActivitiesPerSecond(LaneRates.serverLimit(lane.rate())));
      return builder;
    };
  }

  /**
   * Each model call of a lane waits for its throttle slot and feeds the lane's ledger (see
   * ModelCallGate).
   */
  @Bean(destroyMethod = "close")
  LaneGate laneGate(LaneLedger ledger, LaneThrottle throttle, CsProperties properties) {
    // a place in flight not given back (its instance died mid-call) is free after the call's own
    // time limit and a margin
    CsProperties.StageOptions generation = properties.activities().get("generation");
    Duration callLimit =
        generation == null || generation.startToCloseTimeout() == null
            ? Duration.ofSeconds(30)
            : generation.startToCloseTimeout();
    return new LaneGate(
        ledger,
        throttle,
        configuredRates(properties),
        caps(properties),
        callLimit.plusSeconds(5).toMillis());
  }

  @Bean
  LaneLedgerActivities laneActivities(LaneLedger ledger, CsProperties properties) {
    return new LaneLedgerActivities(
        ledger,
        configuredRates(properties),
        caps(properties),
        properties.flowControl().frontLineWait(),
        Clock.systemUTC());
  }

  /**
   * Every few seconds, each lane's ledger loses what no question needs any more (entries past their
   * deadline whose removal was lost, old started calls): the ledger is a cache, so after a storm or
   * a Redis restart it must not keep telling customers they wait. Every instance sweeps; a sweep is
   * one idempotent script per lane.
   */
  @Bean(destroyMethod = "shutdownNow")
  ScheduledExecutorService laneLedgerSweeper(
      LaneLedger ledger, CsProperties properties, MeterRegistry meters) {
    ScheduledExecutorService sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "lane-ledger-sweeper");
              t.setDaemon(true);
              return t;
            });
    Counter removed =
        Counter.builder("cs_lane_ledger_stale_total")
            .description("Lane ledger entries found past their deadline and removed")
            .tag("by", "sweeper")
            .register(meters);
    sweeper.scheduleWithFixedDelay(
        () -> {
          for (String lane : configuredRates(properties).keySet()) {
            try {
              removed.increment(ledger.sweep(lane));
            } catch (RuntimeException e) {
              log.debug("lane {}: ledger sweep failed: {}", lane, e.toString());
            }
          }
        },
        SWEEP_EVERY.toMillis(),
        SWEEP_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
    return sweeper;
  }

  private static final Duration SWEEP_EVERY = Duration.ofSeconds(5);

  /** Each lane's cap of calls in flight (the provider's concurrency limit) by task queue. */
  static Map<String, Integer> caps(CsProperties properties) {
    Map<String, Integer> caps = new LinkedHashMap<>();
    properties.lanes().forEach((name, lane) -> caps.put(lane.taskQueue(), lane.maxConcurrent()));
    return caps;
  }

  @Bean(destroyMethod = "close")
  LaneRateController laneRateController(
      LaneLedger ledger,
      CsProperties properties,
      WorkflowServiceStubs service,
      @Value("${spring.temporal.namespace:default}") String namespace,
      MeterRegistry meters) {
    CsProperties.FlowControl f = properties.flowControl();
    String owner = ManagementFactory.getRuntimeMXBean().getName();
    List<LaneRateController.Lane> lanes =
        properties.lanes().entrySet().stream()
            .map(
                e ->
                    new LaneRateController.Lane(
                        e.getKey(), e.getValue().taskQueue(), e.getValue().rate()))
            .toList();
    return new LaneRateController(
        lanes,
        new LaneRateController.Settings(
            f.adaptiveInterval(),
            f.adaptiveWindow(),
            f.minSuccessRate(),
            f.maxMeanLatency(),
            f.stepUp(),
            f.minRate(),
            f.minCalls(),
            f.slowAloneHalves()),
        ledger,
        new TemporalQueueRateApplier(service, namespace, "questionflow-rate-controller@" + owner),
        owner,
        meters);
  }

  @EventListener(ApplicationReadyEvent.class)
  void startController(ApplicationReadyEvent ready) {
    CsProperties properties = ready.getApplicationContext().getBean(CsProperties.class);
    if (properties.flowControl().adaptiveEnabled()) {
      ready.getApplicationContext().getBean(LaneRateController.class).start();
      log.info(
          "adaptive lane rates on: every {}, lanes {}",
          properties.flowControl().adaptiveInterval(),
          configuredRates(properties));
    }
  }

  /** Configured rate by lane task queue (the ledger's key). */
  static Map<String, Double> configuredRates(CsProperties properties) {
    Map<String, Double> rates = new LinkedHashMap<>();
    properties.lanes().forEach((name, lane) -> rates.put(lane.taskQueue(), lane.rate()));
    return rates;
  }
}
