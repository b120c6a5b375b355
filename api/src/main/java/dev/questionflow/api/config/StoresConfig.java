package dev.questionflow.api.config;

import dev.questionflow.activities.learning.FaqChangeLog;
import dev.questionflow.activities.learning.InMemoryFaqChangeLog;
import dev.questionflow.activities.learning.RedisFaqChangeLog;
import dev.questionflow.activities.redis.LazyRedis;
import dev.questionflow.activities.redis.RedisOrMemory;
import dev.questionflow.activities.redis.RedisTopology;
import dev.questionflow.activities.redis.Reseal;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.activities.session.InMemorySessionStore;
import dev.questionflow.activities.session.RedisSessionStore;
import dev.questionflow.activities.session.SessionLimits;
import dev.questionflow.activities.session.SessionStore;
import dev.questionflow.activities.ticket.GuardedTicketInbox;
import dev.questionflow.activities.ticket.InMemoryTicketInbox;
import dev.questionflow.activities.ticket.LegacyTicketKeys;
import dev.questionflow.activities.ticket.RedisTicketInbox;
import dev.questionflow.activities.ticket.TicketInbox;
import dev.questionflow.api.payload.PayloadProperties;
import dev.questionflow.api.payload.StoredTextReseal;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.workflows.codec.SealedText;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Redis or memory, decided here once for every store: the {@link LazyRedis} bean exists exactly
 * when {@code cs.redis.url} is set, and every store (here, the lane ledger, the token buckets,
 * recent submits) asks for it. Without it the stores are in process memory, and one WARN line per
 * store says what is not durable.
 */
@Configuration(proxyBeanMethods = false)
class StoresConfig {

  private static final Logger log = LoggerFactory.getLogger(StoresConfig.class);

  @Bean(destroyMethod = "close")
  @ConditionalOnExpression("'${cs.redis.url:}' != ''")
  LazyRedis redis(
      CsProperties properties, ObjectProvider<io.lettuce.core.tracing.Tracing> tracing) {
    CsProperties.Redis redis = properties.redis();
    // an unparseable URL stops the start here, with the accepted forms
    RedisTopology topology = RedisTopology.parse(redis.url());
    LazyRedis lazy =
        new LazyRedis(
            topology,
            redis.commandTimeout(),
            redis.retryInterval(),
            redis.tlsCa(),
            redis.waitReplicas(),
            redis.waitTimeout(),
            // a span per command with tracing on (TracingConfig)
            tracing.getIfAvailable(io.lettuce.core.tracing.Tracing::disabled));
    log.info(
        "Redis: {} ({}); ticket and FAQ change writes {}",
        topology.describe(),
        topology.kind().name().toLowerCase(java.util.Locale.ROOT),
        redis.waitReplicas() > 0
            ? "wait for " + redis.waitReplicas() + " replica(s), at most " + redis.waitTimeout()
            : "do not wait for replicas (cs.redis.wait-replicas 0)");
    return lazy;
  }

  /**
   * Tickets under the names from before the hash tag, moved before the inbox's first use; none on a
   * cluster (see {@link LegacyTicketKeys}). One for the inbox and the reseal.
   */
  @Bean
  @ConditionalOnExpression("'${cs.redis.url:}' != ''")
  LegacyTicketKeys legacyTicketKeys(LazyRedis redis) {
    if (redis.topology().kind() == RedisTopology.Kind.CLUSTER) {
      return LegacyTicketKeys.none();
    }
    LegacyTicketKeys legacy = LegacyTicketKeys.toMove();
    // now, in the background (start-up does not wait for Redis); if Redis is down, the inbox's
    // first use moves them before it reads or writes a ticket
    CompletableFuture.runAsync(() -> legacy.ensureMoved(redis.get()))
        .exceptionally(
            e -> {
              log.info(
                  "ticket keys not checked yet ({}); checked at the inbox's first use",
                  e.toString());
              return null;
            });
    return legacy;
  }

  /**
   * Tickets must not be lost: no memory fallback with Redis; while it is down their activities fail
   * and retry.
   */
  @Bean
  TicketInbox ticketInbox(
      ObjectProvider<LazyRedis> redis,
      ObjectProvider<LegacyTicketKeys> legacy,
      DependencyBreakers breakers,
      UpstreamErrors errors,
      SealedText sealed,
      PayloadProperties payloads) {
    LazyRedis lazy = redis.getIfAvailable();
    if (lazy != null) {
      log.info(
          "ticket inbox: Redis (behind the redis circuit breaker), question and reply {}, answered tickets kept {}",
          sealed.encrypting() ? "encrypted" : "NOT encrypted",
          payloads.closedTicketRetention());
      return new GuardedTicketInbox(
          redisTicketInbox(lazy, legacy, sealed, payloads), breakers, errors);
    }
    log.warn(
        "REDIS_URL is not set: the ticket inbox is in process memory and is NOT durable; tickets are lost when this"
            + " process stops. Set REDIS_URL for production.");
    return new InMemoryTicketInbox();
  }

  /**
   * The log of what staff learned from tickets (phrasings, entries): like tickets it must not be
   * lost or differ between instances, so no memory fallback with Redis; while Redis is down,
   * changes fail and every instance keeps the changes it has applied.
   */
  @Bean
  FaqChangeLog faqChangeLog(ObjectProvider<LazyRedis> redis, SealedText sealed, FaqPack pack) {
    LazyRedis lazy = redis.getIfAvailable();
    if (lazy != null) {
      log.info(
          "FAQ change log: Redis, phrasings and answers {}",
          sealed.encrypting() ? "encrypted" : "NOT encrypted");
      return new RedisFaqChangeLog(lazy, lazy.replicatedWrites(), sealed, pack.id());
    }
    log.warn(
        "REDIS_URL is not set: what staff learn from tickets (FAQ phrasings and entries) is in process memory,"
            + " NOT shared between instances and lost when this process stops. Set REDIS_URL for production.");
    return new InMemoryFaqChangeLog();
  }

  /**
   * Session order and conversation history (cs.sessions): Redis, and this instance's memory while
   * it is down.
   */
  @Bean
  SessionStore sessionStore(
      ObjectProvider<LazyRedis> redis,
      CsProperties properties,
      DependencyBreakers breakers,
      UpstreamErrors errors,
      SealedText sealed) {
    SessionLimits limits = sessionLimits(properties);
    InMemorySessionStore memory = new InMemorySessionStore(limits, Clock.systemUTC());
    LazyRedis lazy = redis.getIfAvailable();
    if (lazy != null) {
      log.info(
          "sessions: Redis (last {} turns, kept {} after the last message); this instance's memory while Redis"
              + " is down",
          limits.maxTurns(),
          limits.ttl());
      return RedisOrMemory.of(
          SessionStore.class,
          new RedisSessionStore(lazy, limits, Clock.systemUTC(), sealed),
          memory,
          breakers,
          errors);
    }
    log.warn(
        "REDIS_URL is not set: session order and conversation history are in process memory, NOT shared between"
            + " instances and lost when this process stops. Set REDIS_URL for production.");
    return memory;
  }

  /**
   * The reseal of stored text (admin API) over the same Redis stores as above, unwrapped: it is run
   * by hand, so no breaker or memory fallback. Without Redis there is nothing to reseal.
   */
  @Bean
  StoredTextReseal storedTextReseal(
      ObjectProvider<LazyRedis> redis,
      ObjectProvider<LegacyTicketKeys> legacy,
      CsProperties properties,
      PayloadProperties payloads,
      SealedText sealed,
      FaqPack pack) {
    LazyRedis lazy = redis.getIfAvailable();
    List<Reseal.Resealable> stores =
        lazy == null
            ? List.of()
            : List.of(
                redisTicketInbox(lazy, legacy, sealed, payloads),
                new RedisSessionStore(lazy, sessionLimits(properties), Clock.systemUTC(), sealed),
                new RedisFaqChangeLog(lazy, lazy.replicatedWrites(), sealed, pack.id()));
    return new StoredTextReseal(sealed, sealed.keyId(), stores);
  }

  private static SessionLimits sessionLimits(CsProperties properties) {
    CsProperties.Sessions sessions = properties.sessions();
    return sessions == null
        ? SessionLimits.DEFAULT
        : SessionLimits.of(sessions.maxTurns(), sessions.ttl());
  }

  /** The Redis ticket inbox, as the inbox bean and the reseal both open it. */
  private static RedisTicketInbox redisTicketInbox(
      LazyRedis lazy,
      ObjectProvider<LegacyTicketKeys> legacy,
      SealedText sealed,
      PayloadProperties payloads) {
    return new RedisTicketInbox(
        lazy,
        lazy.replicatedWrites(),
        legacy.getObject(),
        sealed,
        payloads.closedTicketRetention(),
        Clock.systemUTC());
  }
}
