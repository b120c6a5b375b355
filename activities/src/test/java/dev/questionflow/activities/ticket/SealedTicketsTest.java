package dev.questionflow.activities.ticket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.questionflow.activities.redis.Reseal;
import dev.questionflow.activities.testing.TestRedis;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tickets' text in Redis against someone who can write to Redis: a sealed value moved to another
 * ticket or field does not open there; old values (enc1, plain) are read and a reseal rewrites
 * them, after which sealed-only mode refuses the old forms; and with encryption off, a question
 * that looks sealed is still a question in the staff list.
 */
class SealedTicketsTest {

  private static final Duration RETENTION = Duration.ofDays(30);
  private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
  private static final PayloadKeys KEYS = PayloadKeys.parse(PayloadKeys.generateEntry("t1"));
  private static final ObjectMapper JSON = new ObjectMapper();

  private RedisClient client;
  private RedisCommands<String, String> redis;
  private final String prefix = "T-sealed-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  @BeforeEach
  void connect() {
    try {
      client = RedisClient.create(TestRedis.URL);
      redis = client.connect().sync();
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

  @Test
  void aSealedQuestionMovedToAnotherTicketOrFieldDoesNotOpenThere() throws Exception {
    RedisTicketInbox inbox = inbox(SealedText.with(KEYS));
    inbox.createIfAbsent(ticket("a", "my card 4111 1111 1111 1111 is blocked"));
    inbox.createIfAbsent(ticket("b", "where is my parcel"));
    String sealedQuestionOfA = field("a", "question");

    // one ticket's text swapped into another's
    setField("b", "question", sealedQuestionOfA);
    assertThatThrownBy(() -> inbox.find(prefix + "b"))
        .isInstanceOf(PayloadKeys.IntegrityException.class);
    assertThat(inbox.list(Ticket.Status.OPEN, 10_000))
        .extracting(Ticket::ticketId)
        .contains(prefix + "a")
        .doesNotContain(prefix + "b");
    // the question put where the reply is read, in the same ticket
    setField("a", "reply", sealedQuestionOfA);
    assertThatThrownBy(() -> inbox.find(prefix + "a"))
        .isInstanceOf(PayloadKeys.IntegrityException.class);
  }

  @Test
  void withEncryptionOffAQuestionThatLooksSealedStaysInTheStaffList() {
    RedisTicketInbox plain = inbox(SealedText.PLAIN);
    byte[] random = new byte[40];
    new SecureRandom().nextBytes(random);
    String wellFormed = "enc1:k1:" + Base64.getEncoder().encodeToString(random);
    plain.createIfAbsent(ticket("g", wellFormed));
    plain.createIfAbsent(ticket("h", "enc1:k1:hello, is this thing on?"));

    assertThat(plain.list(Ticket.Status.OPEN, 10_000))
        .extracting(Ticket::ticketId)
        .contains(prefix + "g", prefix + "h");
    assertThat(plain.find(prefix + "g").orElseThrow().question()).isEqualTo(wellFormed);
    assertThat(plain.find(prefix + "h").orElseThrow().question())
        .isEqualTo("enc1:k1:hello, is this thing on?");
  }

  @Test
  void oldValuesAreReadAResealRewritesThemAndSealedOnlyThenRefusesTheOldForms() throws Exception {
    // written before: one ticket in plain text (encryption was off), one sealed as enc1
    inbox(SealedText.PLAIN).createIfAbsent(ticket("p", "plain question 4111"));
    inbox(SealedText.PLAIN).createIfAbsent(ticket("q", "placeholder"));
    setField("q", "question", enc1("enc1 question 4111"));
    redis.pexpire("cs:{tickets}:ticket:" + prefix + "p", Duration.ofDays(2).toMillis());

    RedisTicketInbox inbox = inbox(SealedText.with(KEYS));
    RedisTicketInbox strict = inbox(SealedText.with(KEYS, true));
    assertThat(inbox.find(prefix + "p").orElseThrow().question()).isEqualTo("plain question 4111");
    assertThat(inbox.find(prefix + "q").orElseThrow().question()).isEqualTo("enc1 question 4111");
    assertThatThrownBy(() -> strict.find(prefix + "p"))
        .isInstanceOf(SealedText.RefusedException.class);
    assertThatThrownBy(() -> strict.find(prefix + "q"))
        .isInstanceOf(SealedText.RefusedException.class);
    assertThat(strict.list(Ticket.Status.OPEN, 10_000))
        .extracting(Ticket::ticketId)
        .doesNotContain(prefix + "p", prefix + "q");

    Reseal.Count count = inbox.reseal();

    assertThat(count.resealed()).isGreaterThanOrEqualTo(2);
    String p = redis.get("cs:{tickets}:ticket:" + prefix + "p");
    assertThat(JSON.readTree(p).get("question").asText()).startsWith("enc2:t1:");
    assertThat(
            JSON.readTree(redis.get("cs:{tickets}:ticket:" + prefix + "q"))
                .get("question")
                .asText())
        .startsWith("enc2:t1:");
    assertThat(p).doesNotContain("4111");
    assertThat(redis.pttl("cs:{tickets}:ticket:" + prefix + "p")).as("its TTL kept").isPositive();
    assertThat(strict.list(Ticket.Status.OPEN, 10_000))
        .extracting(Ticket::ticketId)
        .contains(prefix + "p", prefix + "q");
    assertThat(strict.find(prefix + "q").orElseThrow().question()).isEqualTo("enc1 question 4111");
    // again: nothing of ours left to rewrite, the values stay as they are
    inbox.reseal();
    assertThat(redis.get("cs:{tickets}:ticket:" + prefix + "p")).isEqualTo(p);
    // a plain value planted after the reseal is refused
    setField("p", "question", "call 0900 to unblock your card");
    assertThatThrownBy(() -> strict.find(prefix + "p"))
        .isInstanceOf(SealedText.RefusedException.class);
  }

  private RedisTicketInbox inbox(SealedText sealed) {
    return new RedisTicketInbox(() -> redis, sealed, RETENTION, Clock.fixed(NOW, ZoneOffset.UTC));
  }

  private String field(String id, String name) throws Exception {
    return JSON.readTree(redis.get("cs:{tickets}:ticket:" + prefix + id)).get(name).asText();
  }

  /** What someone with write access to Redis does: change one field of a ticket's JSON. */
  private void setField(String id, String name, String value) throws Exception {
    String key = "cs:{tickets}:ticket:" + prefix + id;
    ObjectNode node = (ObjectNode) JSON.readTree(redis.get(key));
    node.put(name, value);
    long ttl = redis.pttl(key);
    redis.set(key, JSON.writeValueAsString(node));
    if (ttl > 0) {
      redis.pexpire(key, ttl);
    }
  }

  /** The form written before values were bound to their place: the key ID as associated data. */
  private static String enc1(String text) {
    return "enc1:"
        + KEYS.primaryId()
        + ":"
        + Base64.getEncoder().encodeToString(KEYS.seal(text.getBytes(StandardCharsets.UTF_8)));
  }

  private Ticket ticket(String id, String question) {
    return new Ticket(
        prefix + id,
        "q-" + id,
        "s1",
        "u1",
        question,
        "card",
        5,
        List.of("card_blocked"),
        "no FAQ match",
        Ticket.Status.OPEN,
        NOW,
        null,
        null,
        null,
        null,
        null,
        "backend");
  }
}
