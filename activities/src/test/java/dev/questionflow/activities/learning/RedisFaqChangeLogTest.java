package dev.questionflow.activities.learning;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.testing.TestRedis;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The change log against a real Redis: the contract, plus texts sealed at rest and a second
 * instance (another log object on another connection) reading what the first wrote.
 */
class RedisFaqChangeLogTest extends FaqChangeLogContract {

  private static final SealedText SEALED =
      SealedText.with(PayloadKeys.parse(PayloadKeys.generateEntry("t1")));

  private RedisClient client;
  private RedisCommands<String, String> redis;
  private final String pack = "test-" + UUID.randomUUID().toString().substring(0, 8);

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
      for (String key : redis.keys("cs:faq:{" + pack + "}:*")) {
        redis.del(key);
      }
      client.shutdown();
    }
  }

  @Override
  FaqChangeLog log() {
    return new RedisFaqChangeLog(() -> redis, SEALED, pack);
  }

  @Test
  void theCustomersTextIsSealedInRedisAndAnotherInstanceReadsItPlain() {
    log()
        .append(
            FaqChange.entry(
                "branch_hours",
                "When are branches open?",
                "Nine to five.",
                "is the branch in Leeds open at 8",
                "T-1",
                "alice",
                T0),
            false);
    String raw = redis.hget("cs:faq:{" + pack + "}:changes", "1");
    assertThat(raw)
        .contains("\"agent\":\"alice\"", "\"ticketId\":\"T-1\"", "enc1:t1:")
        .doesNotContain("Leeds", "branches open", "Nine to five");

    RedisClient other = RedisClient.create(TestRedis.URL);
    try {
      RedisCommands<String, String> second = other.connect().sync();
      FaqChangeLog elsewhere = new RedisFaqChangeLog(() -> second, SEALED, pack);
      assertThat(elsewhere.revision()).isEqualTo(log().revision()).isPositive();
      assertThat(elsewhere.all().get(0).text()).isEqualTo("is the branch in Leeds open at 8");
    } finally {
      other.shutdown();
    }
  }
}
