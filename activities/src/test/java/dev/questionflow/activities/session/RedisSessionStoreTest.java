package dev.questionflow.activities.session;

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Redis store against a real Redis at IT_REDIS_URL (default redis://127.0.0.1:6379); skipped
 * when none answers (fails under CI=true). Every test uses its own session ID and deletes its keys.
 */
class RedisSessionStoreTest {

  private static final String URL = TestRedis.URL;
  private static final SessionLimits LIMITS = new SessionLimits(3, Duration.ofMinutes(30));

  private final List<RedisClient> clients = new ArrayList<>();
  private final String session = "it-" + UUID.randomUUID();
  private RedisCommands<String, String> admin;

  @BeforeEach
  void redisIsThere() {
    try {
      admin = connect().sync();
      admin.ping();
    } catch (RuntimeException e) {
      TestRedis.unavailable(e);
    }
  }

  @AfterEach
  void cleanUp() {
    if (admin != null) {
      for (String sid : List.of(session, session + "-b")) {
        admin.del(
            RedisSessionStore.key(sid, "line"),
            RedisSessionStore.key(sid, "members"),
            RedisSessionStore.key(sid, "history"));
      }
    }
    clients.forEach(RedisClient::shutdown);
  }

  /** A separate client and connection, like another instance of the app. */
  private StatefulRedisConnection<String, String> connect() {
    RedisClient client = RedisClient.create(URL);
    client.setDefaultTimeout(Duration.ofSeconds(2));
    clients.add(client);
    return client.connect();
  }

  private RedisSessionStore store() {
    return new RedisSessionStore(connect(), LIMITS, Clock.systemUTC());
  }

  private static Turn turn(String workflowId, int i) {
    return new Turn(
        workflowId, "q" + i, "a" + i, "LLM", Instant.parse("2025-01-01T10:00:00Z").plusSeconds(i));
  }

  @Test
  void twoInstancesSeeTheSameLineAndHistory() {
    RedisSessionStore one = store();
    RedisSessionStore two = store();

    assertThat(one.join(session, "A")).isNull();
    assertThat(two.join(session, "B")).isEqualTo("A");
    assertThat(two.join(session, "B")).as("retried join").isEqualTo("A");
    assertThat(one.join(session, "A")).as("retried join of the first").isNull();
    assertThat(one.line(session)).containsExactly("A", "B");
    assertThat(two.line(session)).containsExactly("A", "B");

    assertThat(two.finish(session, "A", turn("A", 1))).isEqualTo("B");
    assertThat(one.finish(session, "A", turn("A", 1)))
        .as("retried finish: same next, no second turn")
        .isEqualTo("B");
    assertThat(one.line(session)).containsExactly("B");
    assertThat(one.history(session)).containsExactly(turn("A", 1));
    assertThat(two.history(session)).containsExactly(turn("A", 1));

    assertThat(one.finish(session, "B", null)).isNull();
    assertThat(two.line(session)).isEmpty();
    assertThat(two.history(session)).as("no answer, no turn").hasSize(1);
  }

  @Test
  void theHistoryKeepsTheLastTurnsAndEveryKeyHasTheTtl() {
    RedisSessionStore store = store();
    for (int i = 1; i <= 5; i++) {
      store.join(session, "Q" + i);
      store.finish(session, "Q" + i, turn("Q" + i, i));
    }
    store.join(session, "waiting");

    assertThat(store.history(session)).extracting(Turn::question).containsExactly("q3", "q4", "q5");
    assertThat(admin.llen(RedisSessionStore.key(session, "history"))).isEqualTo(3);
    long ttl = LIMITS.ttl().toMillis();
    for (String part : List.of("line", "members", "history")) {
      assertThat(admin.pttl(RedisSessionStore.key(session, part)))
          .as("PTTL of " + part)
          .isGreaterThan(ttl - 60_000)
          .isLessThanOrEqualTo(ttl);
    }
  }

  @Test
  void aQuestionThatNeverFinishesIsDroppedFromTheLineAfterTheTtl() {
    Instant[] now = {Instant.parse("2025-01-01T10:00:00Z")};
    Clock clock =
        new Clock() {
          @Override
          public Instant instant() {
            return now[0];
          }

          @Override
          public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }
        };
    RedisSessionStore store = new RedisSessionStore(connect(), LIMITS, clock);
    store.join(session, "crashed");
    now[0] = now[0].plus(Duration.ofMinutes(20));
    assertThat(store.join(session, "B")).isEqualTo("crashed");
    now[0] = now[0].plus(Duration.ofMinutes(11));

    assertThat(store.join(session, "C")).isEqualTo("B");
    assertThat(store.line(session)).containsExactly("B", "C");
  }

  @Test
  void concurrentJoinsFromTwentyThreadsFormOneStrictLine() throws Exception {
    int threads = 20;
    List<RedisSessionStore> stores = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      stores.add(store()); // four "instances", five threads each
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    Map<String, String> predecessorOf = new ConcurrentHashMap<>();
    List<Future<?>> done = new ArrayList<>();
    try {
      for (int i = 0; i < threads; i++) {
        String workflowId = "W" + i;
        RedisSessionStore store = stores.get(i % stores.size());
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  predecessorOf.put(
                      workflowId, Objects.requireNonNullElse(store.join(session, workflowId), ""));
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(10, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(predecessorOf).hasSize(threads);
    assertThat(predecessorOf.values().stream().filter(String::isEmpty))
        .as("exactly one is first")
        .hasSize(1);
    assertThat(new HashSet<>(predecessorOf.values()))
        .as("every predecessor distinct")
        .hasSize(threads);
    // follow the chain from the first: it must visit all 20 in the order of the stored line
    Map<String, String> successorOf = new HashMap<>();
    predecessorOf.forEach((wf, pred) -> successorOf.put(pred, wf));
    List<String> chain = new ArrayList<>();
    for (String wf = successorOf.get(""); wf != null; wf = successorOf.get(wf)) {
      chain.add(wf);
    }
    assertThat(chain).hasSize(threads);
    assertThat(stores.get(0).line(session)).containsExactlyElementsOf(chain);
    // and retries from other instances change nothing
    for (int i = 0; i < threads; i++) {
      String wf = "W" + i;
      assertThat(
              Objects.requireNonNullElse(stores.get((i + 1) % stores.size()).join(session, wf), ""))
          .isEqualTo(predecessorOf.get(wf));
    }
    assertThat(stores.get(1).line(session)).containsExactlyElementsOf(chain);
  }

  @Test
  void turnsAreStoredSealedAndReadBackPlain() {
    SealedText sealed = SealedText.with(PayloadKeys.parse(PayloadKeys.generateEntry("s1")));
    RedisSessionStore store =
        new RedisSessionStore(connect()::sync, LIMITS, Clock.systemUTC(), sealed);
    store.join(session, "wf-1");
    store.finish(session, "wf-1", turn("wf-1", 7));
    store.finish(session, "wf-1", turn("wf-1", 7)); // a retried finish: still one turn

    List<String> raw = admin.lrange(RedisSessionStore.key(session, "history"), 0, -1);
    assertThat(raw).singleElement().asString().contains("enc2:s1:").contains("\"wf-1\"");
    assertThat(raw.get(0)).doesNotContain("\"q7\"").doesNotContain("\"a7\"");
    assertThat(store.history(session)).containsExactly(turn("wf-1", 7));
  }

  /** Someone who can write to Redis copies a turn of one session into another's history. */
  @Test
  void aTurnMovedToAnotherSessionDoesNotOpenThereAndTheRestIsStillRead() {
    SealedText sealed = SealedText.with(PayloadKeys.parse(PayloadKeys.generateEntry("s1")));
    RedisSessionStore store =
        new RedisSessionStore(connect()::sync, LIMITS, Clock.systemUTC(), sealed);
    String other = session + "-b";
    store.join(session, "wf-1");
    store.finish(session, "wf-1", turn("wf-1", 1));
    store.join(other, "wf-2");
    store.finish(other, "wf-2", turn("wf-2", 2));

    String moved = admin.lindex(RedisSessionStore.key(session, "history"), 0);
    admin.rpush(RedisSessionStore.key(other, "history"), moved);

    assertThat(store.history(other)).containsExactly(turn("wf-2", 2));
    assertThat(store.history(session)).containsExactly(turn("wf-1", 1));
  }

  @Test
  void oldTurnsAreReadAResealRewritesThemAndSealedOnlyRefusesTheOldForms() {
    PayloadKeys keys = PayloadKeys.parse(PayloadKeys.generateEntry("s1"));
    String history = RedisSessionStore.key(session, "history");
    // written before: a plain turn (encryption off) and an enc1 turn (sealed, not bound)
    String enc1 =
        "enc1:s1:"
            + java.util.Base64.getEncoder()
                .encodeToString(keys.seal("q2".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    admin.rpush(
        history,
        "{\"workflowId\":\"wf-1\",\"question\":\"q1\",\"answer\":\"a1\",\"level\":\"LLM\","
            + "\"at\":\"2025-01-01T10:00:01Z\"}",
        "{\"workflowId\":\"wf-2\",\"question\":\""
            + enc1
            + "\",\"answer\":\"a2\",\"level\":\"LLM\",\"at\":\"2025-01-01T10:00:02Z\"}");
    admin.pexpire(history, Duration.ofMinutes(10).toMillis());
    RedisSessionStore store =
        new RedisSessionStore(connect()::sync, LIMITS, Clock.systemUTC(), SealedText.with(keys));
    RedisSessionStore strict =
        new RedisSessionStore(
            connect()::sync, LIMITS, Clock.systemUTC(), SealedText.with(keys, true));
    assertThat(store.history(session)).containsExactly(turn("wf-1", 1), turn("wf-2", 2));
    assertThat(strict.history(session)).isEmpty();

    assertThat(store.reseal().resealed()).isGreaterThanOrEqualTo(2);

    assertThat(admin.lrange(history, 0, -1))
        .hasSize(2)
        .allSatisfy(raw -> assertThat(raw).contains("enc2:s1:").doesNotContain("\"q1\""));
    assertThat(admin.pttl(history)).as("its TTL kept").isPositive();
    assertThat(strict.history(session)).containsExactly(turn("wf-1", 1), turn("wf-2", 2));
  }
}
