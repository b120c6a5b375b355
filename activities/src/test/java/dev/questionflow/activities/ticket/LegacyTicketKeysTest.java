package dev.questionflow.activities.ticket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.redis.ReplicatedWrites;
import dev.questionflow.activities.testing.RedisProcess;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tickets written under the names from before the hash tag are moved, once, before the inbox's
 * first use; sealed text still opens (it is bound to the ticket, not to where Redis keeps it); a
 * second run changes nothing. On a redis-server of its own: the move scans every legacy key.
 */
class LegacyTicketKeysTest {

  private static final PayloadKeys KEYS = PayloadKeys.parse(PayloadKeys.generateEntry("t1"));
  private static final Duration RETENTION = Duration.ofDays(30);

  @TempDir Path dir;
  private RedisProcess server;
  private RedisClient client;
  private RedisCommands<String, String> redis;

  @BeforeEach
  void start() {
    server = RedisProcess.start(dir);
    client = RedisClient.create(server.url());
    redis = client.connect().sync();
  }

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.shutdown();
    }
    if (server != null) {
      server.close();
    }
  }

  private RedisTicketInbox inbox(LegacyTicketKeys legacy) {
    return new RedisTicketInbox(
        () -> redis,
        ReplicatedWrites.unwaited(() -> redis),
        legacy,
        SealedText.with(KEYS),
        RETENTION,
        Clock.systemUTC());
  }

  /** What the version before the tag left: the ticket's JSON and its index entry, old names. */
  private void writeTheOldWay(Ticket ticket) {
    RedisTicketInbox today = inbox(LegacyTicketKeys.none());
    today.createIfAbsent(ticket);
    if (ticket.status() == Ticket.Status.ANSWERED) {
      today.update(ticket);
    }
    String id = ticket.ticketId();
    redis.rename(TicketKeys.ticket(id), "cs:ticket:" + id);
    Double score = redis.zscore(TicketKeys.status(ticket.status()), id);
    redis.zrem(TicketKeys.status(ticket.status()), id);
    redis.zadd("cs:tickets:" + ticket.status(), score, id);
  }

  @Test
  void oldTicketsAreMovedBeforeTheFirstUseWithTheirTtlAndStillOpen() {
    Instant now = Instant.now();
    writeTheOldWay(ticket("T-open", Ticket.Status.OPEN, now));
    writeTheOldWay(ticket("T-done", Ticket.Status.ANSWERED, now));
    long ttl = redis.pttl("cs:ticket:T-done");
    assertThat(ttl).isPositive();

    RedisTicketInbox inbox = inbox(LegacyTicketKeys.toMove());
    assertThat(inbox.list(Ticket.Status.OPEN, 10))
        .extracting(Ticket::ticketId)
        .containsExactly("T-open");
    assertThat(inbox.find("T-open").orElseThrow().question()).isEqualTo("my card 4111 is blocked");
    assertThat(inbox.find("T-done").orElseThrow().reply()).isEqualTo("Unblocked.");
    assertThat(inbox.list(Ticket.Status.ANSWERED, 10))
        .extracting(Ticket::ticketId)
        .containsExactly("T-done");
    assertThat(redis.pttl(TicketKeys.ticket("T-done"))).isBetween(ttl - 60_000, ttl);
    assertThat(redis.pttl(TicketKeys.ticket("T-open"))).isEqualTo(-1L);
    assertThat(redis.keys("cs:ticket:*")).isEmpty();
    assertThat(redis.keys("cs:tickets:*")).isEmpty();
  }

  @Test
  void aSecondRunChangesNothingAndATicketUnderBothNamesIsLeftForAPerson() {
    Instant now = Instant.now();
    writeTheOldWay(ticket("T-a", Ticket.Status.OPEN, now));
    LegacyTicketKeys.Moved first = LegacyTicketKeys.move(redis);
    assertThat(first.tickets()).isEqualTo(1);
    assertThat(first.indexEntries()).isEqualTo(1);
    String moved = redis.get(TicketKeys.ticket("T-a"));

    LegacyTicketKeys.Moved again = LegacyTicketKeys.move(redis);
    assertThat(again).isEqualTo(new LegacyTicketKeys.Moved(0, 0, List.of()));
    assertThat(redis.get(TicketKeys.ticket("T-a"))).isEqualTo(moved);

    // the same ticket under both names (an instance of the old version wrote it again): identical
    // copies merge, different ones are both kept and named
    redis.set("cs:ticket:T-a", moved);
    redis.set("cs:ticket:T-b", "{\"old\":true}");
    redis.set(TicketKeys.ticket("T-b"), "{\"new\":true}");
    LegacyTicketKeys.Moved conflicts = LegacyTicketKeys.move(redis);
    assertThat(conflicts.conflicts()).containsExactly("T-b");
    assertThat(redis.exists("cs:ticket:T-a")).isZero();
    assertThat(redis.get("cs:ticket:T-b")).isEqualTo("{\"old\":true}");
    assertThat(redis.get(TicketKeys.ticket("T-b"))).isEqualTo("{\"new\":true}");
  }

  private static Ticket ticket(String id, Ticket.Status status, Instant at) {
    boolean answered = status == Ticket.Status.ANSWERED;
    return new Ticket(
        id,
        "wf-" + id,
        "s1",
        "u1",
        "my card 4111 is blocked",
        "card_blocked",
        5,
        List.of(),
        "no match",
        status,
        at,
        null,
        answered ? "alice" : null,
        answered ? "Unblocked." : null,
        answered ? at : null,
        null,
        "caller");
  }
}
