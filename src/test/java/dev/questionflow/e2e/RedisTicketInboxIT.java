package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.ticket.RedisTicketInbox;
import dev.questionflow.activities.ticket.Ticket;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Redis ticket inbox against a real Redis: idempotent create, status index, and a fresh
 * connection sees it.
 */
class RedisTicketInboxIT {

  private static RedisClient client;

  @BeforeAll
  static void connect() {
    client = RedisClient.create(Infra.redisUrl());
  }

  @AfterAll
  static void disconnect() {
    client.shutdown();
  }

  private static Ticket ticket(String id, Instant createdAt) {
    return new Ticket(
        id,
        "q-" + id,
        "s1",
        "u1",
        "Why is the sky blue?",
        "general_question",
        5,
        List.of(),
        "no match",
        Ticket.Status.OPEN,
        createdAt,
        null,
        null,
        null,
        null,
        null,
        "it-caller");
  }

  @Test
  void ticketsAreCreatedOnceListedOldestFirstAndSurviveANewConnection() {
    String prefix = "T-it-" + UUID.randomUUID().toString().substring(0, 8);
    Instant now =
        Instant.parse("2000-01-01T00:00:00Z"); // older than any real ticket, so listed first
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisTicketInbox inbox = new RedisTicketInbox(connection);
      inbox.createIfAbsent(ticket(prefix + "-b", now.plusSeconds(1)));
      inbox.createIfAbsent(ticket(prefix + "-a", now));
      Ticket again = inbox.createIfAbsent(ticket(prefix + "-a", now.plusSeconds(99)));
      assertThat(again.createdAt()).as("the first write wins").isEqualTo(now);
    }
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisTicketInbox inbox = new RedisTicketInbox(connection);
      List<String> open = inbox.list(Ticket.Status.OPEN, 2).stream().map(Ticket::ticketId).toList();
      assertThat(open).containsExactly(prefix + "-a", prefix + "-b");

      Ticket a = inbox.find(prefix + "-a").orElseThrow();
      inbox.update(
          new Ticket(
              a.ticketId(),
              a.workflowId(),
              a.sessionId(),
              a.userId(),
              a.question(),
              a.intent(),
              a.priority(),
              a.candidateFaqIds(),
              a.reason(),
              Ticket.Status.ANSWERED,
              a.createdAt(),
              null,
              "alice",
              "Blue.",
              Instant.now(),
              null,
              a.caller()));

      assertThat(inbox.list(Ticket.Status.OPEN, 1))
          .extracting(Ticket::ticketId)
          .containsExactly(prefix + "-b");
      assertThat(inbox.find(prefix + "-a")).get().extracting(Ticket::reply).isEqualTo("Blue.");
      connection
          .sync()
          .del("cs:{tickets}:ticket:" + prefix + "-a", "cs:{tickets}:ticket:" + prefix + "-b");
      connection.sync().zrem("cs:{tickets}:status:OPEN", prefix + "-b");
      connection.sync().zrem("cs:{tickets}:status:ANSWERED", prefix + "-a");
    }
  }
}
