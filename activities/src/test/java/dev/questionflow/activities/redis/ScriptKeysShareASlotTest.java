package dev.questionflow.activities.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.lane.LaneLedger;
import dev.questionflow.activities.lane.RedisLaneLedger;
import dev.questionflow.activities.learning.FaqChange;
import dev.questionflow.activities.learning.RedisFaqChangeLog;
import dev.questionflow.activities.outcome.RedisOutcomeStream;
import dev.questionflow.activities.session.RedisSessionStore;
import dev.questionflow.activities.session.SessionLimits;
import dev.questionflow.activities.session.Turn;
import dev.questionflow.activities.ticket.RedisTicketInbox;
import dev.questionflow.activities.ticket.Ticket;
import dev.questionflow.workflows.codec.SealedText;
import dev.questionflow.workflows.outcome.QuestionRecord;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * On a Redis Cluster a script may only touch keys of one slot (else CROSSSLOT): every script of
 * every store is run here against a recorder of its keys, and each script's keys must hash to one
 * slot. (LegacyTicketKeys is the exception by design: it renames across the tag, and runs on a
 * single Redis or Sentinel only.)
 */
class ScriptKeysShareASlotTest {

  /** The keys of each EVAL / EVALSHA, in order. */
  private final List<List<String>> scripts = new ArrayList<>();

  private String lastWritten;

  @SuppressWarnings("unchecked")
  private RedisClusterCommands<String, String> recorder() {
    return (RedisClusterCommands<String, String>)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {RedisClusterCommands.class},
            (self, method, args) -> {
              String name = method.getName();
              if ((name.equals("eval") || name.equals("evalsha"))
                  && args.length >= 3
                  && args[2] instanceof Object[] keys) {
                scripts.add(Arrays.stream(keys).map(String::valueOf).toList());
                if (args.length > 3 && args[3] instanceof Object[] values && values.length > 0) {
                  lastWritten = String.valueOf(values[0]);
                }
              }
              if (name.equals("hget") && String.valueOf(args[0]).endsWith(":changes")) {
                return lastWritten; // the change the append wrote, for the revert to read
              }
              Class<?> type = method.getReturnType();
              if (type == boolean.class) {
                return false;
              }
              if (type.isPrimitive() && type != void.class) {
                return 0;
              }
              return null;
            });
  }

  /** Runs a store operation; what it does with the recorder's empty answers does not matter. */
  private static void quietly(Runnable operation) {
    try {
      operation.run();
    } catch (RuntimeException ignored) {
      // null answers: the keys were recorded before
    }
  }

  private void assertEachScriptInOneSlot(int atLeast) {
    assertThat(scripts).hasSizeGreaterThanOrEqualTo(atLeast);
    for (List<String> keys : scripts) {
      Set<Integer> slots = keys.stream().map(SlotHash::getSlot).collect(Collectors.toSet());
      assertThat(slots).as("slots of the keys %s", keys).hasSize(1);
    }
  }

  @Test
  void theLaneLedgersScriptsTouchOneLanesSlot() {
    RedisClusterCommands<String, String> redis = recorder();
    LaneLedger ledger =
        new RedisLaneLedger(
            () -> redis, Clock.systemUTC(), Duration.ofMinutes(10), Duration.ofSeconds(60));
    String lane = "questions-model-primary";
    quietly(() -> ledger.enter(lane, "wf-1", 5, System.currentTimeMillis() + 10_000));
    quietly(() -> ledger.takeFrontTicket(lane, 2, 3));
    quietly(() -> ledger.leave(lane, "wf-1"));
    quietly(() -> ledger.sweep(lane));
    quietly(() -> ledger.tryStartCall(lane, "call-1", 5, 10, 500, 30_000));
    quietly(() -> ledger.started(lane, "wf-1"));
    quietly(() -> ledger.stats(lane, Duration.ofSeconds(60)));
    quietly(() -> ledger.callsPerSecond(lane, 10));
    quietly(() -> ledger.frontArrivalsPerSecond(lane, 10));
    quietly(() -> ledger.lead(lane, "me", Duration.ofSeconds(5)));

    assertEachScriptInOneSlot(10);
    assertThat(scripts.get(0)).allMatch(k -> k.startsWith("cs:lane:{" + lane + "}:"));
    // and two lanes are two tags: they may live on different nodes
    assertThat(SlotHash.getSlot("cs:lane:{a}:waiting"))
        .isNotEqualTo(SlotHash.getSlot("cs:lane:{b}:waiting"));
  }

  @Test
  void aPublishedStatusIsWrittenByAScriptOfItsOwnKey() {
    RedisClusterCommands<String, String> redis = recorder();
    var store =
        new dev.questionflow.activities.status.RedisStatusStore(
            () -> redis,
            () -> null,
            SealedText.PLAIN,
            Duration.ofHours(1),
            Duration.ofSeconds(1),
            Clock.systemUTC());
    var status =
        new dev.questionflow.activities.status.PublishedStatus(
            "q-1",
            1,
            0,
            new dev.questionflow.workflows.question.QuestionStatus(
                "q-1",
                dev.questionflow.workflows.question.Stage.PROCESSING,
                null,
                null,
                null,
                null));
    quietly(() -> store.offer(status));
    quietly(() -> store.offerFirst(status));
    LaneLedger ledger =
        new RedisLaneLedger(
            () -> redis, Clock.systemUTC(), Duration.ofMinutes(10), Duration.ofSeconds(60));
    quietly(() -> ledger.positions("questions-model-primary", List.of("q-1", "q-2")));

    assertEachScriptInOneSlot(3);
    assertThat(scripts.get(0)).containsExactly("cs:status:{q-1}");
  }

  @Test
  void aTicketAndItsIndexesAreWrittenInTheTicketsSlot() {
    RedisClusterCommands<String, String> redis = recorder();
    RedisTicketInbox inbox =
        new RedisTicketInbox(() -> redis, SealedText.PLAIN, Duration.ofDays(30), Clock.systemUTC());
    Instant now = Instant.now();
    quietly(() -> inbox.createIfAbsent(ticket("T-1", Ticket.Status.OPEN, now)));
    quietly(() -> inbox.update(ticket("T-1", Ticket.Status.ANSWERED, now)));
    quietly(() -> inbox.createIfAbsent(ticket("T-2", Ticket.Status.OPEN, now)));

    assertEachScriptInOneSlot(3);
    // every ticket in one slot: one WAIT on its master covers a ticket and its index
    assertThat(scripts.stream().flatMap(List::stream).map(SlotHash::getSlot).distinct())
        .containsExactly(SlotHash.getSlot("{tickets}"));
    assertThat(scripts.get(1)).as("update: the ticket, its index, the other index").hasSize(3);
  }

  @Test
  void aSessionsJoinAndFinishTouchItsSlot() {
    RedisClusterCommands<String, String> redis = recorder();
    RedisSessionStore store =
        new RedisSessionStore(() -> redis, SessionLimits.DEFAULT, Clock.systemUTC());
    quietly(() -> store.join("caller|user|s1", "wf-1"));
    quietly(
        () ->
            store.finish(
                "caller|user|s1", "wf-1", new Turn("wf-1", "q", "a", "FAQ", Instant.now())));

    assertEachScriptInOneSlot(2);
  }

  @Test
  void theFaqChangeLogsAppendAndRevertTouchItsPacksSlot() {
    RedisClusterCommands<String, String> redis = recorder();
    RedisFaqChangeLog log = new RedisFaqChangeLog(() -> redis, SealedText.PLAIN, "banking77");
    quietly(
        () ->
            log.append(
                FaqChange.phrasing(
                    "card_arrival", "where is my card", "T-1", "alice", Instant.now()),
                false));
    quietly(() -> log.revert(1, "bob", Instant.now()));

    assertEachScriptInOneSlot(2);
  }

  @Test
  void anOutcomeAndItsDuplicateMarkerShareTheStreamsSlot() {
    RedisClusterCommands<String, String> redis = recorder();
    RedisOutcomeStream stream =
        new RedisOutcomeStream(() -> redis, 1000, Duration.ofDays(30), Clock.systemUTC());
    quietly(
        () ->
            stream.append(
                new QuestionRecord(
                    "wf-1",
                    "caller",
                    "STANDARD",
                    "card_arrival",
                    "ANSWERED",
                    "RAG",
                    "card_arrival",
                    List.of(),
                    120L,
                    "m",
                    10,
                    5,
                    0.0,
                    System.currentTimeMillis())));
    quietly(
        () ->
            stream.append(
                new QuestionRecord(
                    "wf-2",
                    null,
                    null,
                    null,
                    "ANSWERED",
                    "FAQ",
                    null,
                    List.of(),
                    null,
                    null,
                    null,
                    null,
                    null,
                    0L)));

    assertEachScriptInOneSlot(2);
    assertThat(scripts.get(0))
        .containsExactly(RedisOutcomeStream.KEY, RedisOutcomeStream.KEY + ":seen:wf-1");
  }

  private static Ticket ticket(String id, Ticket.Status status, Instant at) {
    boolean answered = status == Ticket.Status.ANSWERED;
    return new Ticket(
        id,
        "wf-" + id,
        "s1",
        "u1",
        "Why is the sky blue?",
        "general_question",
        5,
        List.of(),
        "no match",
        status,
        at,
        null,
        answered ? "alice" : null,
        answered ? "Blue." : null,
        answered ? at : null,
        null,
        "caller");
  }
}
