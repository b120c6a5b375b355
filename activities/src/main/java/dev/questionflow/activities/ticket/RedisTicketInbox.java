package dev.questionflow.activities.ticket;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import io.lettuce.core.Range;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ticket inbox in Redis: one JSON string per ticket plus a sorted set per status (score =
 * creation time for open tickets, answer time for answered ones), so tickets survive restarts of
 * the app whenever Redis persists (the dev tooling runs it with appendonly).
 *
 * <p>The customer's question and the staff reply are stored sealed ({@link SealedText}); an
 * answered ticket expires after the retention, and its index entry is pruned with it.
 */
public class RedisTicketInbox implements TicketInbox {

  private static final Logger log = LoggerFactory.getLogger(RedisTicketInbox.class);

  private static final String TICKET_KEY = "cs:ticket:";
  private static final String STATUS_KEY = "cs:tickets:";

  /**
   * The shared connection's commands, asked for at each use (see LazyRedis: it may not be connected
   * yet).
   */
  private final Supplier<RedisCommands<String, String>> redis;

  private final ObjectMapper json =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private final SealedText sealed;
  private final Duration closedRetention;
  private final Clock clock;

  /**
   * @param sealed seals the question and reply ({@link SealedText#PLAIN}: stored as they are)
   * @param closedRetention how long an answered ticket is kept
   */
  public RedisTicketInbox(
      Supplier<RedisCommands<String, String>> redis,
      SealedText sealed,
      Duration closedRetention,
      Clock clock) {
    this.redis = redis;
    this.sealed = sealed;
    this.closedRetention = closedRetention;
    this.clock = clock;
  }

  /** Plain text, answered tickets kept 30 days. */
  public RedisTicketInbox(StatefulRedisConnection<String, String> connection) {
    this(connection::sync, SealedText.PLAIN, Duration.ofDays(30), Clock.systemUTC());
  }

  @Override
  public Ticket createIfAbsent(Ticket ticket) {
    String created =
        redis.get().set(TICKET_KEY + ticket.ticketId(), write(ticket), SetArgs.Builder.nx());
    if ("OK".equals(created)) {
      redis.get().zadd(STATUS_KEY + ticket.status(), score(ticket), ticket.ticketId());
      return ticket;
    }
    Ticket existing = find(ticket.ticketId()).orElseThrow();
    // repair the index if a crash hit between the two writes above
    redis.get().zadd(STATUS_KEY + existing.status(), score(existing), existing.ticketId());
    return existing;
  }

  @Override
  public Optional<Ticket> find(String ticketId) {
    return Optional.ofNullable(redis.get().get(TICKET_KEY + ticketId)).map(this::read);
  }

  @Override
  public void update(Ticket ticket) {
    boolean closed = ticket.status() == Ticket.Status.ANSWERED;
    redis
        .get()
        .set(
            TICKET_KEY + ticket.ticketId(),
            write(ticket),
            closed ? SetArgs.Builder.px(closedRetention.toMillis()) : new SetArgs());
    for (Ticket.Status status : Ticket.Status.values()) {
      if (status != ticket.status()) {
        redis.get().zrem(STATUS_KEY + status, ticket.ticketId());
      }
    }
    redis.get().zadd(STATUS_KEY + ticket.status(), score(ticket), ticket.ticketId());
    if (closed) {
      // the expired tickets' index entries: answered longer ago than the retention
      redis
          .get()
          .zremrangebyscore(
              STATUS_KEY + Ticket.Status.ANSWERED,
              Range.create(0L, clock.millis() - closedRetention.toMillis()));
    }
  }

  /** Open tickets by creation (longest waiting first), answered ones by when they were answered. */
  private static long score(Ticket ticket) {
    return ticket.status() == Ticket.Status.ANSWERED && ticket.answeredAt() != null
        ? ticket.answeredAt().toEpochMilli()
        : ticket.createdAt().toEpochMilli();
  }

  /**
   * A ticket whose text no configured key opens (written under a key since removed from
   * PAYLOAD_KEYS, altered, or sealed with other bytes under the same key name) is left out of the
   * list with a WARN: one such ticket must not hide the others.
   */
  @Override
  public List<Ticket> list(Ticket.Status status, int limit) {
    List<Ticket> tickets = new ArrayList<>();
    for (String id : redis.get().zrange(STATUS_KEY + status, 0, limit - 1)) {
      try {
        find(id).filter(t -> Objects.equals(t.status(), status)).ifPresent(tickets::add);
      } catch (PayloadKeys.UnknownKeyException
          | PayloadKeys.IntegrityException
          | SealedText.NotConfiguredException e) {
        log.warn("ticket {} left out of the list: {}", id, e.getMessage());
      }
    }
    return tickets;
  }

  @Override
  public String kind() {
    return "redis";
  }

  private String write(Ticket ticket) {
    try {
      return json.writeValueAsString(
          ticket.withText(sealed.seal(ticket.question()), sealed.seal(ticket.reply())));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Ticket read(String value) {
    try {
      Ticket stored = json.readValue(value, Ticket.class);
      return stored.withText(sealed.open(stored.question()), sealed.open(stored.reply()));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
