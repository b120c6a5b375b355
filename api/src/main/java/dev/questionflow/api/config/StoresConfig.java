package dev.questionflow.api.config;

import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.activities.session.InMemorySessionStore;
import dev.questionflow.activities.session.RedisSessionStore;
import dev.questionflow.activities.session.SessionLimits;
import dev.questionflow.activities.session.SessionStore;
import dev.questionflow.activities.ticket.GuardedTicketInbox;
import dev.questionflow.activities.ticket.InMemoryTicketInbox;
import dev.questionflow.activities.ticket.RedisTicketInbox;
import dev.questionflow.activities.ticket.TicketInbox;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Clock;
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

  /** Session order and conversation history (cs.sessions), shared by all instances through Redis. */
  @Bean
  SessionStore sessionStore(ObjectProvider<StatefulRedisConnection<String, String>> redis, CsProperties properties) {
    CsProperties.Sessions sessions = properties.sessions();
    SessionLimits limits =
        sessions == null ? SessionLimits.DEFAULT : SessionLimits.of(sessions.maxTurns(), sessions.ttl());
    StatefulRedisConnection<String, String> connection = redis.getIfAvailable();
    if (connection != null) {
      log.info("sessions: Redis (last {} turns, kept {} after the last message)", limits.maxTurns(), limits.ttl());
      return new RedisSessionStore(connection, limits, Clock.systemUTC());
    }
    log.warn(
        "REDIS_URL is not set: session order and conversation history are in process memory, NOT shared between"
            + " instances and lost when this process stops. Set REDIS_URL for production.");
    return new InMemorySessionStore(limits, Clock.systemUTC());
  }
}
