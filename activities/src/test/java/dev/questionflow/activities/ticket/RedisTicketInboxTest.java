package dev.questionflow.activities.ticket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.testing.TestRedis;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ticket inbox against a real Redis: the customer's question and the staff reply are stored
 * sealed and read back plain; an answered ticket expires after the retention and leaves the
 * answered index with it.
 */
class RedisTicketInboxTest {

  private static final Duration RETENTION = Duration.ofDays(30);
  private static final SealedText SEALED =
      SealedText.with(PayloadKeys.parse(PayloadKeys.generateEntry("t1")));

  private RedisClient client;
  private RedisCommands<String, String> redis;
  private final String prefix = "T-it-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  @BeforeEach
  void connect() {
    try {
      client = RedisClient.create(TestRedis.URL);
      StatefulRedisConnection<String, String> connection = client.connect();
      redis = connection.sync();
      redis.ping();
    } catch (RuntimeException e) {
      TestRedis.unavailable(e);
    }
  }

  @AfterEach
  void cleanUp() {
    if (redis != null) {
      for (String key : redis.keys("cs:{tickets}:ticket:" + prefix + "*")) {
        redis.del(key);
      }
      for (Ticket.Status status : Ticket.Status.values()) {
        for (String id : redis.zrange("cs:{tickets}:status:" + status, 0, -1)) {
          if (id.startsWith(prefix)) {
            redis.zrem("cs:{tickets}:status:" + status, id);
          }
        }
      }
      client.shutdown();
    }
  }

  private RedisTicketInbox inbox(Instant now) {
    return new RedisTicketInbox(() -> redis, SEALED, RETENTION, Clock.fixed(now, ZoneOffset.UTC));
  }

  private Ticket ticket(String id, Instant created) {
    return new Ticket(
        prefix + id,
        "q-" + id,
        "s1",
        "u1",
        "my card 4111 1111 1111 1111 is blocked",
        "card",
        5,
        List.of("card_blocked"),
        "no FAQ match",
        Ticket.Status.OPEN,
        created,
        null,
        null,
        null,
        null,
        null,
        "backend");
  }

  @Test
  void theQuestionAndTheReplyAreStoredSealedAndReadBackPlain() {
    Instant now = Instant.parse("2026-12-01T10:00:00Z");
    RedisTicketInbox inbox = inbox(now);
    Ticket open = inbox.createIfAbsent(ticket("a", now));
    inbox.update(open.answered("alice", "Unblocked, call us at 0800", now.plusSeconds(60)));

    String stored = redis.get("cs:{tickets}:ticket:" + prefix + "a");
    assertThat(stored).contains("enc2:t1:").doesNotContain("4111").doesNotContain("Unblocked");
    Ticket read = inbox.find(prefix + "a").orElseThrow();
    assertThat(read.question()).isEqualTo("my card 4111 1111 1111 1111 is blocked");
    assertThat(read.reply()).isEqualTo("Unblocked, call us at 0800");
    // the same inbox without the keys cannot read it: the text is really encrypted
    RedisTicketInbox withoutKeys =
        new RedisTicketInbox(() -> redis, SealedText.PLAIN, RETENTION, Clock.systemUTC());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> withoutKeys.find(prefix + "a"))
        .hasMessageContaining("PAYLOAD_KEYS");
    // a list leaves such a ticket out instead of failing for all the others
    RedisTicketInbox otherKey =
        new RedisTicketInbox(
            () -> redis,
            SealedText.with(PayloadKeys.parse(PayloadKeys.generateEntry("t2"))),
            RETENTION,
            Clock.systemUTC());
    inbox.createIfAbsent(ticket("e", now)); // open, under t1
    otherKey.createIfAbsent(ticket("d", now)); // open, under t2
    assertThat(inbox.list(Ticket.Status.OPEN, 10_000))
        .extracting(Ticket::ticketId)
        .contains(prefix + "e");
    assertThat(otherKey.list(Ticket.Status.OPEN, 10_000))
        .extracting(Ticket::ticketId)
        .contains(prefix + "d")
        .doesNotContain(prefix + "e");
    // the same key name with other bytes (two deployments' development keys on one Redis): the
    // integrity check fails, and the list still shows the others
    RedisTicketInbox sameNameOtherBytes =
        new RedisTicketInbox(
            () -> redis,
            SealedText.with(PayloadKeys.parse(PayloadKeys.generateEntry("t1"))),
            RETENTION,
            Clock.systemUTC());
    sameNameOtherBytes.createIfAbsent(ticket("f", now));
    assertThat(sameNameOtherBytes.list(Ticket.Status.OPEN, 10_000))
        .extracting(Ticket::ticketId)
        .contains(prefix + "f")
        .doesNotContain(prefix + "e");
  }

  @Test
  void anAnsweredTicketExpiresAfterTheRetentionAndLeavesTheIndex() {
    Instant now = Instant.now();
    RedisTicketInbox inbox = inbox(now);
    Ticket open = inbox.createIfAbsent(ticket("b", now));
    assertThat(redis.pttl("cs:{tickets}:ticket:" + prefix + "b")).isEqualTo(-1L); // open: kept

    inbox.update(open.answered("alice", "Done.", now));
    long ttl = redis.pttl("cs:{tickets}:ticket:" + prefix + "b");
    assertThat(ttl).isBetween(RETENTION.toMillis() - 60_000, RETENTION.toMillis());
    assertThat(redis.zscore("cs:{tickets}:status:ANSWERED", prefix + "b")).isNotNull();

    // a later answer, past the first one's retention, prunes its index entry
    Instant later = now.plus(RETENTION).plusSeconds(1);
    RedisTicketInbox laterInbox = inbox(later);
    Ticket other = laterInbox.createIfAbsent(ticket("c", later));
    laterInbox.update(other.answered("bob", "Done too.", later));
    assertThat(redis.zscore("cs:{tickets}:status:ANSWERED", prefix + "b")).isNull();
    assertThat(redis.zscore("cs:{tickets}:status:ANSWERED", prefix + "c")).isNotNull();
  }
}
