package dev.questionflow.activities.ticket;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The ticket inbox in Redis: one JSON string per ticket plus a sorted set per status (score =
 * creation time), so tickets survive restarts of the app whenever Redis persists (the dev tooling
 * runs it with appendonly).
 */
public class RedisTicketInbox implements TicketInbox {

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

  public RedisTicketInbox(Supplier<RedisCommands<String, String>> redis) {
    this.redis = redis;
  }

  public RedisTicketInbox(StatefulRedisConnection<String, String> connection) {
    this(connection::sync);
  }

  @Override
  public Ticket createIfAbsent(Ticket ticket) {
    String created =
        redis.get().set(TICKET_KEY + ticket.ticketId(), write(ticket), SetArgs.Builder.nx());
    if ("OK".equals(created)) {
      redis
          .get()
          .zadd(STATUS_KEY + ticket.status(), ticket.createdAt().toEpochMilli(), ticket.ticketId());
      return ticket;
    }
    Ticket existing = find(ticket.ticketId()).orElseThrow();
    // repair the index if a crash hit between the two writes above
    redis
        .get()
        .zadd(
            STATUS_KEY + existing.status(),
            existing.createdAt().toEpochMilli(),
            existing.ticketId());
    return existing;
  }

  @Override
  public Optional<Ticket> find(String ticketId) {
    return Optional.ofNullable(redis.get().get(TICKET_KEY + ticketId)).map(this::read);
  }

  @Override
  public void update(Ticket ticket) {
    redis.get().set(TICKET_KEY + ticket.ticketId(), write(ticket));
    for (Ticket.Status status : Ticket.Status.values()) {
      if (status != ticket.status()) {
        redis.get().zrem(STATUS_KEY + status, ticket.ticketId());
      }
    }
    redis
        .get()
        .zadd(STATUS_KEY + ticket.status(), ticket.createdAt().toEpochMilli(), ticket.ticketId());
  }

  @Override
  public List<Ticket> list(Ticket.Status status, int limit) {
    return redis.get().zrange(STATUS_KEY + status, 0, limit - 1).stream()
        .map(this::find)
        .flatMap(Optional::stream)
        .filter(t -> Objects.equals(t.status(), status))
        .toList();
  }

  @Override
  public String kind() {
    return "redis";
  }

  private String write(Ticket ticket) {
    try {
      return json.writeValueAsString(ticket);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Ticket read(String value) {
    try {
      return json.readValue(value, Ticket.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
