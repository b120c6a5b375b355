package dev.questionflow.activities.outcome;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.testing.TestRedis;
import dev.questionflow.workflows.outcome.QuestionRecord;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The stream against a real Redis: one entry per question, bounded, read back by time. */
class RedisOutcomeStreamTest {

  private final String key = "cs:{outcomes-test-" + UUID.randomUUID() + "}";
  private RedisClient client;
  private RedisCommands<String, String> redis;

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
      redis.keys(key + "*").forEach(redis::del);
      client.shutdown();
    }
  }

  static QuestionRecord record(String workflowId, long finishedAt) {
    return new QuestionRecord(
        workflowId,
        "web",
        "STANDARD",
        "cards",
        "ANSWERED",
        "RAG",
        "faq-1",
        List.of("primary model: ModelTimeout"),
        1200L,
        "fake-model",
        40,
        7,
        0.000012,
        finishedAt);
  }

  private RedisOutcomeStream stream(long maxLength) {
    return new RedisOutcomeStream(
        () -> redis, key, maxLength, Duration.ofDays(1), Clock.systemUTC());
  }

  @Test
  void aSecondWriteOfTheSameQuestionIsANoOp() {
    RedisOutcomeStream stream = stream(1000);
    long now = System.currentTimeMillis();
    assertThat(stream.append(record("q-1", now))).isTrue();
    assertThat(stream.append(record("q-1", now))).isFalse();
    assertThat(stream.append(record("q-2", now))).isTrue();

    assertThat(redis.xlen(key)).isEqualTo(2);
    assertThat(stream.since(now - 60_000)).containsExactly(record("q-1", now), record("q-2", now));
    assertThat(redis.ttl(key + ":seen:q-1")).isBetween(1L, Duration.ofDays(1).toSeconds());
  }

  @Test
  void readsOnlyWhatWasWrittenSinceTheGivenTime() throws Exception {
    RedisOutcomeStream stream = stream(1000);
    stream.append(record("old", System.currentTimeMillis()));
    long between = System.currentTimeMillis() + 1;
    org.awaitility.Awaitility.await().until(() -> System.currentTimeMillis() > between);
    stream.append(record("new", System.currentTimeMillis()));

    assertThat(stream.since(between)).extracting(QuestionRecord::workflowId).containsExactly("new");
  }

  @Test
  void theLengthIsBounded() {
    RedisOutcomeStream stream = stream(10);
    for (int i = 0; i < 500; i++) {
      stream.append(record("q-" + i, System.currentTimeMillis()));
    }
    // MAXLEN ~ trims whole macro nodes (100 entries by default), never below the bound
    assertThat(redis.xlen(key)).isBetween(10L, 200L);
  }

  @Test
  void theMemoryStreamDedupesAndKeepsTheLastRecords() {
    InMemoryOutcomeStream memory = new InMemoryOutcomeStream(2);
    assertThat(memory.append(record("a", 1))).isTrue();
    assertThat(memory.append(record("a", 1))).isFalse();
    memory.append(record("b", 2));
    memory.append(record("c", 3));
    assertThat(memory.since(0)).extracting(QuestionRecord::workflowId).containsExactly("b", "c");
  }
}
