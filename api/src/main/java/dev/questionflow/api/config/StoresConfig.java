package dev.questionflow.api.config;

import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.activities.ticket.GuardedTicketInbox;
import dev.questionflow.activities.ticket.InMemoryTicketInbox;
import dev.questionflow.activities.ticket.RedisTicketInbox;
import dev.questionflow.activities.ticket.TicketInbox;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Redis when REDIS_URL is set; otherwise in-process stores, and one clear log line saying what is not durable. */
@Configuration(proxyBeanMethods = false)
class StoresConfig {

  private static final Logger log = LoggerFactory.getLogger(StoresConfig.class);

  @Bean(destroyMethod = "shutdown")
  @ConditionalOnExpression("'${cs.redis.url:}' != ''")
  RedisClient redisClient(CsProperties properties) {
    return RedisClient.create(properties.redis().url());
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnExpression("'${cs.redis.url:}' != ''")
  StatefulRedisConnection<String, String> redisConnection(RedisClient client) {
    return client.connect();
  }

  @Bean
  TicketInbox ticketInbox(
      ObjectProvider<StatefulRedisConnection<String, String>> redis,
      DependencyBreakers breakers,
      UpstreamErrors errors) {
    StatefulRedisConnection<String, String> connection = redis.getIfAvailable();
    if (connection != null) {
      log.info("ticket inbox: Redis (behind the redis circuit breaker)");
      return new GuardedTicketInbox(new RedisTicketInbox(connection), breakers, errors);
    }
    log.warn(
        "REDIS_URL is not set: the ticket inbox is in process memory and is NOT durable; tickets are lost when this"
            + " process stops. Set REDIS_URL for production.");
    return new InMemoryTicketInbox();
  }
}
