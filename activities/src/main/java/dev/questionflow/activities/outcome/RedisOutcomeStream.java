package dev.questionflow.activities.outcome;

import dev.questionflow.workflows.outcome.QuestionRecord;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The outcome stream in Redis: {@code XADD cs:{outcomes} MAXLEN ~ <max-length>}, then {@code XTRIM
 * MINID ~ <now - retention>} (one XADD takes one trim strategy; MINID needs Redis 6.2). Each entry
 * has {@code v} (the schema, 1) and {@code record} (the {@link QuestionRecord} as JSON). A marker
 * {@code cs:{outcomes}:seen:<workflow id>} (kept for the retention) makes a second write of the
 * same question a no-op, in the same script, so the two keys share a hash tag.
 */
public final class RedisOutcomeStream implements OutcomeStream {

  public static final String KEY = "cs:{outcomes}";

  /** KEYS: stream, seen marker. ARGV: max length, min id, marker ttl ms, record JSON. */
  static final String APPEND =
      """
      if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[3]) then return 0 end
      redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'v', '1', 'record', ARGV[4])
      redis.call('XTRIM', KEYS[1], 'MINID', '~', ARGV[2])
      return 1
      """;

  private final Supplier<RedisClusterCommands<String, String>> redis;
  private final String key;
  private final long maxLength;
  private final Duration retention;
  private final Clock clock;

  public RedisOutcomeStream(
      Supplier<RedisClusterCommands<String, String>> redis,
      long maxLength,
      Duration retention,
      Clock clock) {
    this(redis, KEY, maxLength, retention, clock);
  }

  /**
   * @param key the stream's name, with a hash tag (the duplicate markers share it)
   */
  public RedisOutcomeStream(
      Supplier<RedisClusterCommands<String, String>> redis,
      String key,
      long maxLength,
      Duration retention,
      Clock clock) {
    this.key = key;
    this.redis = redis;
    this.maxLength = maxLength;
    this.retention = retention;
    this.clock = clock;
  }

  @Override
  public boolean append(QuestionRecord record) {
    long minId = clock.millis() - retention.toMillis();
    Long written =
        redis
            .get()
            .eval(
                APPEND,
                ScriptOutputType.INTEGER,
                new String[] {key, key + ":seen:" + record.workflowId()},
                String.valueOf(maxLength),
                Math.max(0, minId) + "-0",
                String.valueOf(retention.toMillis()),
                OutcomeJson.write(record));
    return written != null && written == 1;
  }

  @Override
  public List<QuestionRecord> since(long epochMillis) {
    List<QuestionRecord> records = new ArrayList<>();
    String from = epochMillis + "-0";
    while (true) {
      List<StreamMessage<String, String>> page =
          redis.get().xrange(key, Range.create(from, "+"), io.lettuce.core.Limit.create(0, 1000));
      for (StreamMessage<String, String> message : page) {
        String json = message.getBody().get("record");
        if (json != null) {
          records.add(OutcomeJson.read(json));
        }
      }
      if (page.size() < 1000) {
        return records;
      }
      from = "(" + page.get(page.size() - 1).getId(); // exclusive, Redis 6.2
    }
  }
}
