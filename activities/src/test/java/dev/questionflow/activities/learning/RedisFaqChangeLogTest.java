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
        .contains("\"agent\":\"alice\"", "\"ticketId\":\"T-1\"", "enc2:t1:")
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

  /**
   * An entry's answer copied over another change's phrasing does not open there; a plain change
   * written before is resealed, after which sealed-only mode reads it.
   */
  @Test
  void textsAreBoundToTheirChangeAndAResealRewritesOldOnes() {
    PayloadKeys keys = PayloadKeys.parse(PayloadKeys.generateEntry("t1"));
    FaqChangeLog sealedLog = new RedisFaqChangeLog(() -> redis, SealedText.with(keys), pack);
    sealedLog.append(
        FaqChange.entry("e1", "Card blocked?", "Call 0800.", "card blocked", "T-1", "alice", T0),
        false);
    sealedLog.append(FaqChange.phrasing("e1", "my card is stuck", "T-2", "bob", T0), true);
    String changes = "cs:faq:{" + pack + "}:changes";
    String first = redis.hget(changes, "1");
    String second = redis.hget(changes, "2");
    String answerOfFirst = first.replaceAll(".*\"answer\":\"([^\"]+)\".*", "$1");
    String textOfSecond = second.replaceAll(".*\"text\":\"([^\"]+)\".*", "$1");
    redis.hset(changes, "2", second.replace(textOfSecond, answerOfFirst));
    assertThat(sealedLog.all()).extracting(FaqChange::version).containsExactly(1L);
    redis.hset(changes, "2", second);

    // a change written while encryption was off
    new RedisFaqChangeLog(() -> redis, SealedText.PLAIN, pack)
        .append(FaqChange.phrasing("e1", "card swallowed by ATM", "T-3", "carol", T0), true);
    FaqChangeLog strict = new RedisFaqChangeLog(() -> redis, SealedText.with(keys, true), pack);
    assertThat(strict.all()).extracting(FaqChange::version).containsExactly(1L, 2L);

    assertThat(((RedisFaqChangeLog) sealedLog).reseal().resealed()).isEqualTo(1);

    assertThat(redis.hget(changes, "3")).contains("enc2:t1:").doesNotContain("swallowed");
    assertThat(strict.all())
        .extracting(FaqChange::text)
        .containsExactly("card blocked", "my card is stuck", "card swallowed by ATM");
  }
}
