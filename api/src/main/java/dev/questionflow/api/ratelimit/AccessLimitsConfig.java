package dev.questionflow.api.ratelimit;

import dev.questionflow.activities.lane.RedisBuckets;
import dev.questionflow.activities.redis.LazyRedis;
import io.github.bucket4j.TimeMeter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The access limiter: buckets in Redis through the app's Lettuce client when there is one
 * (StoresConfig decides), in this process otherwise (one WARN line says so). A {@link TimeMeter}
 * bean, if any, replaces the wall clock (tests).
 */
@Configuration(proxyBeanMethods = false)
class AccessLimitsConfig {

  private static final Logger log = LoggerFactory.getLogger(AccessLimitsConfig.class);

  @Bean(destroyMethod = "close")
  AccessLimiter accessLimiter(
      AccessLimitsProperties limits,
      ObjectProvider<LazyRedis> lazyRedis,
      ObjectProvider<TimeMeter> clock,
      MeterRegistry meters) {
    // wall-clock based: instances sharing a bucket in Redis must agree on the time
    TimeMeter time = clock.getIfAvailable(() -> TimeMeter.SYSTEM_MILLISECONDS);
    LazyRedis shared = lazyRedis.getIfAvailable();
    if (!limits.enabled()) {
      log.warn(
          "access limits are OFF (cs.access-limits.enabled=false): no per-user, per-IP or global limit");
      return new AccessLimiter(limits, null, time, meters);
    }
    if (shared == null) {
      log.warn(
          "REDIS_URL is not set: access limits (global {}, per user {}, per IP {}) hold PER INSTANCE; with n instances"
              + " n times as many requests get through. Set REDIS_URL to share them.",
          limits.global(),
          limits.perUser(),
          limits.perIp());
      return new AccessLimiter(limits, null, time, meters);
    }
    RedisBuckets redis = new RedisBuckets(shared.connector(), limits.redisTimeout(), time);
    if (redis.awaitConnected(limits.redisConnectTimeout())) {
      log.info(
          "access limits shared through Redis: global {}, per user {}, per IP {}",
          limits.global(),
          limits.perUser(),
          limits.perIp());
    } else {
      log.warn(
          "access limits: no Redis connection within {}; limits hold per instance until it connects",
          limits.redisConnectTimeout());
    }
    return new AccessLimiter(limits, redis, time, meters);
  }
}
