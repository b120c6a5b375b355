package dev.questionflow.activities.ticket;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.questionflow.activities.redis.Reseal;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import dev.questionflow.workflows.codec.SealedText.Place;
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
 * <p>The customer's question and the staff reply are stored sealed ({@link SealedText}) to their
 * ticket's key and field, so one ticket's text does not open in another; an answered ticket expires
 * after the retention, and its index entry is pruned with it.
 */
public class RedisTicketInbox implements TicketInbox, Reseal.Resealable {

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
    return Optional.ofNullable(redis.get().get(TICKET_KEY + ticketId))
        .map(value -> read(ticketId, value));
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
   * PAYLOAD_KEYS, altered, moved from another ticket or field, or sealed with other bytes under the
   * same key name), or in an old form under PAYLOAD_SEALED_ONLY, is left out of the list with a
   * WARN: one such ticket must not hide the others.
   */
  @Override
  public List<Ticket> list(Ticket.Status status, int limit) {
    List<Ticket> tickets = new ArrayList<>();
    for (String id : redis.get().zrange(STATUS_KEY + status, 0, limit - 1)) {
      try {
        find(id).filter(t -> Objects.equals(t.status(), status)).ifPresent(tickets::add);
      } catch (PayloadKeys.UnknownKeyException
          | PayloadKeys.IntegrityException
          | SealedText.NotConfiguredException
          | SealedText.RefusedException e) {
        log.warn("ticket {} left out of the list: {}", id, e.getMessage());
      }
    }
    return tickets;
  }

  @Override
  public String kind() {
    return "redis";
  }

  /**
   * Rewrites every ticket's question and reply as enc2 under the primary key (see {@link
   * SealedText#reseal}); a ticket an instance rewrote meanwhile is read again.
   */
  @Override
  public Reseal.Count reseal() {
    Reseal.Tally tally = new Reseal.Tally();
    Reseal.scan(redis.get(), TICKET_KEY + "*", key -> resealOne(key, tally));
    return tally.count();
  }

  @Override
  public String name() {
    return "tickets";
  }

  private void resealOne(String key, Reseal.Tally tally) {
    String ticketId = key.substring(TICKET_KEY.length());
    for (int attempt = 0; attempt < 3; attempt++) {
      String stored = redis.get().get(key);
      if (stored == null) {
        return; // expired meanwhile
      }
      if (attempt == 0) {
        tally.examined();
      }
      Ticket ticket;
      try {
        ticket = json.readValue(stored, Ticket.class);
      } catch (JsonProcessingException e) {
        tally.unreadable(key, new IllegalArgumentException("not a ticket's JSON"));
        return;
      }
      if (sealed.current(ticket.question()) && sealed.current(ticket.reply())) {
        return;
      }
      String resealed;
      try {
        resealed =
            toJson(
                ticket.withText(
                    sealed.reseal(ticket.question(), place(ticketId, "question")),
                    sealed.reseal(ticket.reply(), place(ticketId, "reply"))));
      } catch (RuntimeException e) {
        if (!Reseal.unreadable(e)) {
          throw e;
        }
        tally.unreadable(key, e);
        return;
      }
      if (Reseal.setIf(redis.get(), key, stored, resealed)) {
        tally.resealed();
        return;
      }
    }
    tally.unreadable(key, new IllegalStateException("changed three times while being resealed"));
  }

  /** Where a ticket's text is stored: its key and the JSON field. */
  static Place place(String ticketId, String field) {
    return new Place(TICKET_KEY + ticketId, field);
  }

  private String write(Ticket ticket) {
    String id = ticket.ticketId();
    return toJson(
        ticket.withText(
            sealed.seal(ticket.question(), place(id, "question")),
            sealed.seal(ticket.reply(), place(id, "reply"))));
  }

  private String toJson(Ticket ticket) {
    try {
      return json.writeValueAsString(ticket);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A ticket read from its key, so its text is opened for the ticket the key names. */
  private Ticket read(String ticketId, String value) {
    try {
      Ticket stored = json.readValue(value, Ticket.class);
      return stored.withText(
          sealed.open(stored.question(), place(ticketId, "question")),
          sealed.open(stored.reply(), place(ticketId, "reply")));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
