package dev.questionflow.activities.ticket;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.questionflow.activities.redis.ReplicatedWrites;
import dev.questionflow.activities.redis.Reseal;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import dev.questionflow.workflows.codec.SealedText.Place;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
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
 * the app whenever Redis persists (the dev tooling runs it with appendonly). Keys: {@link
 * TicketKeys}, under one hash tag, so a create or update is one script on one node, followed by one
 * WAIT for the replicas ({@link ReplicatedWrites}, {@code cs.redis.wait-replicas}).
 *
 * <p>The customer's question and the staff reply are stored sealed ({@link SealedText}) to their
 * ticket and field, so one ticket's text does not open in another; an answered ticket expires after
 * the retention, and its index entry is pruned with it.
 */
public class RedisTicketInbox implements TicketInbox, Reseal.Resealable {

  private static final Logger log = LoggerFactory.getLogger(RedisTicketInbox.class);

  /**
   * KEYS: ticket, its status index. ARGV: JSON, score, ticket ID. Returns nil when created, else
   * the ticket already stored (the first write wins: a retried create is idempotent).
   */
  private static final String CREATE =
      """
      if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
        redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
        return false
      end
      return redis.call('GET', KEYS[1])
      """;

  /**
   * KEYS: ticket, its status index, the other statuses' indexes. ARGV: JSON, time to live (ms, 0 =
   * none), score, ticket ID, prune the status index up to this score (-1 = no pruning).
   */
  private static final String UPDATE =
      """
      if tonumber(ARGV[2]) > 0 then
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
      else
        redis.call('SET', KEYS[1], ARGV[1])
      end
      for i = 3, #KEYS do redis.call('ZREM', KEYS[i], ARGV[4]) end
      redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
      if tonumber(ARGV[5]) >= 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], 0, ARGV[5]) end
      """;

  /**
   * The shared connection's commands, asked for at each use (see LazyRedis: it may not be connected
   * yet).
   */
  private final Supplier<RedisClusterCommands<String, String>> redis;

  private final ReplicatedWrites writes;
  private final LegacyTicketKeys legacy;

  private final ObjectMapper json =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private final SealedText sealed;
  private final Duration closedRetention;
  private final Clock clock;

  /**
   * @param writes how writes reach Redis (and wait for its replicas)
   * @param legacy tickets under the names from before the hash tag, moved before the first use
   * @param sealed seals the question and reply ({@link SealedText#PLAIN}: stored as they are)
   * @param closedRetention how long an answered ticket is kept
   */
  public RedisTicketInbox(
      Supplier<RedisClusterCommands<String, String>> redis,
      ReplicatedWrites writes,
      LegacyTicketKeys legacy,
      SealedText sealed,
      Duration closedRetention,
      Clock clock) {
    this.redis = redis;
    this.writes = writes;
    this.legacy = legacy;
    this.sealed = sealed;
    this.closedRetention = closedRetention;
    this.clock = clock;
  }

  /** Writes without waiting for replicas, nothing moved. */
  public RedisTicketInbox(
      Supplier<RedisClusterCommands<String, String>> redis,
      SealedText sealed,
      Duration closedRetention,
      Clock clock) {
    this(
        redis,
        ReplicatedWrites.unwaited(redis),
        LegacyTicketKeys.none(),
        sealed,
        closedRetention,
        clock);
  }

  /** Plain text, answered tickets kept 30 days. */
  public RedisTicketInbox(StatefulRedisConnection<String, String> connection) {
    this(connection::sync, SealedText.PLAIN, Duration.ofDays(30), Clock.systemUTC());
  }

  /** The shared connection's commands, once the legacy keys are moved. */
  private RedisClusterCommands<String, String> ready() {
    RedisClusterCommands<String, String> commands = redis.get();
    legacy.ensureMoved(commands);
    return commands;
  }

  @Override
  public Ticket createIfAbsent(Ticket ticket) {
    ready();
    String id = ticket.ticketId();
    String stored =
        writes.write(
            TicketKeys.ticket(id),
            ReplicatedWrites.Shortfall.FAIL,
            r ->
                r.eval(
                    CREATE,
                    ScriptOutputType.VALUE,
                    new String[] {TicketKeys.ticket(id), TicketKeys.status(ticket.status())},
                    write(ticket),
                    Long.toString(score(ticket)),
                    id));
    if (stored == null) {
      return ticket;
    }
    Ticket existing = read(id, stored);
    // repair the index of a ticket written by a version that wrote it and its index apart (a crash
    // between the two); ZADD of the same member and score changes nothing otherwise
    writes.write(
        TicketKeys.ticket(id),
        ReplicatedWrites.Shortfall.FAIL,
        r -> r.zadd(TicketKeys.status(existing.status()), score(existing), id));
    return existing;
  }

  @Override
  public Optional<Ticket> find(String ticketId) {
    return Optional.ofNullable(ready().get(TicketKeys.ticket(ticketId)))
        .map(value -> read(ticketId, value));
  }

  @Override
  public void update(Ticket ticket) {
    ready();
    boolean closed = ticket.status() == Ticket.Status.ANSWERED;
    String id = ticket.ticketId();
    List<String> keys =
        new ArrayList<>(List.of(TicketKeys.ticket(id), TicketKeys.status(ticket.status())));
    for (Ticket.Status status : Ticket.Status.values()) {
      if (status != ticket.status()) {
        keys.add(TicketKeys.status(status));
      }
    }
    // closed: the expired tickets' index entries go too (answered longer ago than the retention)
    long pruneUpTo = closed ? clock.millis() - closedRetention.toMillis() : -1;
    writes.write(
        TicketKeys.ticket(id),
        ReplicatedWrites.Shortfall.FAIL,
        r ->
            r.eval(
                UPDATE,
                ScriptOutputType.STATUS,
                keys.toArray(String[]::new),
                write(ticket),
                Long.toString(closed ? closedRetention.toMillis() : 0),
                Long.toString(score(ticket)),
                id,
                Long.toString(pruneUpTo)));
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
    for (String id : ready().zrange(TicketKeys.status(status), 0, limit - 1)) {
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
    Reseal.scan(ready(), TicketKeys.EVERY_TICKET, key -> resealOne(key, tally));
    return tally.count();
  }

  @Override
  public String name() {
    return "tickets";
  }

  private void resealOne(String key, Reseal.Tally tally) {
    String ticketId = TicketKeys.idOf(key);
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
      if (writes.write(
          key, ReplicatedWrites.Shortfall.WARN, r -> Reseal.setIf(r, key, stored, resealed))) {
        tally.resealed();
        return;
      }
    }
    tally.unreadable(key, new IllegalStateException("changed three times while being resealed"));
  }

  /** Where a ticket's text is sealed to ({@link TicketKeys#place}). */
  static Place place(String ticketId, String field) {
    return TicketKeys.place(ticketId, field);
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
