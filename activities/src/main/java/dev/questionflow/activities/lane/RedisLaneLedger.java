package dev.questionflow.activities.lane;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The lanes' ledger in Redis, shared by every instance. Keys per lane {@code L}:
 *
 * <ul>
 *   <li>{@code cs:lane:L:waiting} sorted set, member = workflow ID, score = priority key x 10^12 +
 *       arrival number ({@code cs:lane:L:seq}): the server's dispatch order, so a member's rank is
 *       the number of questions ahead;
 *   <li>{@code cs:lane:L:enqueued} sorted set, score = entry time: entries older than {@code
 *       staleAfter} (a question that died while waiting) are dropped on the next entry so they
 *       cannot inflate positions;
 *   <li>{@code cs:lane:L:started} sorted set, score = start time: questions whose call started,
 *       kept for {@code staleAfter}, so an entry that arrives after its call started (the entry and
 *       the call are scheduled together) is not counted as waiting;
 *   <li>{@code cs:lane:L:stats:<epoch second>} hash {@code calls, ok, latency} (expires after 2
 *       windows);
 *   <li>{@code cs:lane:L:rate} the current (adaptive) rate; {@code cs:lane:L:controller} the
 *       controller's lease.
 * </ul>
 *
 * Entering is one Lua script (atomic, idempotent per workflow ID); the stats of a window are summed
 * by one script.
 */
public final class RedisLaneLedger implements LaneLedger {

  private static final String ENTER =
      """
      local now = tonumber(ARGV[3])
      redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[4]))
      if redis.call('ZSCORE', KEYS[4], ARGV[1]) then
        return -1
      end
      local stale = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[4]))
      for _, id in ipairs(stale) do
        redis.call('ZREM', KEYS[1], id)
        redis.call('ZREM', KEYS[3], id)
      end
      if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
        local seq = redis.call('INCR', KEYS[2])
        redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) * 1000000000000 + seq, ARGV[1])
        redis.call('ZADD', KEYS[3], now, ARGV[1])
      end
      return redis.call('ZRANK', KEYS[1], ARGV[1])
      """;

  private static final String STARTED =
      """
      redis.call('ZREM', KEYS[1], ARGV[1])
      redis.call('ZREM', KEYS[2], ARGV[1])
      redis.call('ZADD', KEYS[3], tonumber(ARGV[2]), ARGV[1])
      """;

  private static final String STATS =
      """
      local calls, ok, latency = 0, 0, 0
      for _, key in ipairs(KEYS) do
        local v = redis.call('HMGET', key, 'calls', 'ok', 'latency')
        calls = calls + (tonumber(v[1]) or 0)
        ok = ok + (tonumber(v[2]) or 0)
        latency = latency + (tonumber(v[3]) or 0)
      end
      return {calls, ok, latency}
      """;

  private static final String PER_SECOND =
      """
      local counts = {}
      for i, key in ipairs(KEYS) do
        counts[i] = tonumber(redis.call('HGET', key, 'calls')) or 0
      end
      return counts
      """;

  private static final String LEAD =
      """
      if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return 1
      end
      return 0
      """;

  /**
   * The shared connection's commands, asked for at each use (see LazyRedis: it may not be connected
   * yet).
   */
  private final Supplier<RedisCommands<String, String>> redis;

  private final Clock clock;
  private final Duration staleAfter;

  public RedisLaneLedger(
      Supplier<RedisCommands<String, String>> redis, Clock clock, Duration staleAfter) {
    this.redis = redis;
    this.clock = clock;
    this.staleAfter = staleAfter;
  }

  public RedisLaneLedger(
      StatefulRedisConnection<String, String> connection, Clock clock, Duration staleAfter) {
    this(connection::sync, clock, staleAfter);
  }

  static double score(int priorityKey, long seq) {
    return priorityKey * 1e12 + seq;
  }

  private static String key(String lane, String suffix) {
    return "cs:lane:" + lane + ":" + suffix;
  }

  @Override
  public long enter(String lane, String workflowId, int priorityKey) {
    Long rank =
        redis
            .get()
            .eval(
                ENTER,
                ScriptOutputType.INTEGER,
                new String[] {
                  key(lane, "waiting"),
                  key(lane, "seq"),
                  key(lane, "enqueued"),
                  key(lane, "started")
                },
                workflowId,
                Integer.toString(priorityKey),
                Long.toString(clock.millis()),
                Long.toString(staleAfter.toMillis()));
    return rank == null ? -1 : rank;
  }

  @Override
  public long position(String lane, String workflowId) {
    Long rank = redis.get().zrank(key(lane, "waiting"), workflowId);
    return rank == null ? -1 : rank;
  }

  @Override
  public void started(String lane, String workflowId) {
    redis
        .get()
        .eval(
            STARTED,
            ScriptOutputType.STATUS,
            new String[] {key(lane, "waiting"), key(lane, "enqueued"), key(lane, "started")},
            workflowId,
            Long.toString(clock.millis()));
  }

  @Override
  public void finished(String lane, boolean success, long latencyMillis) {
    String bucket = key(lane, "stats:" + clock.millis() / 1000);
    redis.get().hincrby(bucket, "calls", 1);
    if (success) {
      redis.get().hincrby(bucket, "ok", 1);
    }
    redis.get().hincrby(bucket, "latency", latencyMillis);
    redis.get().expire(bucket, 600);
  }

  @Override
  public LaneStats stats(String lane, Duration window) {
    // the window ends with the current second
    String[] keys =
        statsKeys(lane, clock.millis() / 1000 - window.toSeconds() + 1, (int) window.toSeconds());
    List<Long> sums = redis.get().eval(STATS, ScriptOutputType.MULTI, keys);
    long calls = sums.get(0);
    return new LaneStats(calls, sums.get(1), calls == 0 ? 0 : (double) sums.get(2) / calls);
  }

  @Override
  public long[] callsPerSecond(String lane, int seconds) {
    // complete seconds only: the current one is left out
    String[] keys = statsKeys(lane, clock.millis() / 1000 - seconds, seconds);
    List<Long> counts = redis.get().eval(PER_SECOND, ScriptOutputType.MULTI, keys);
    return counts.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * The per-second stats buckets of {@code count} seconds from {@code firstSecond} (epoch seconds),
   * oldest first.
   */
  private static String[] statsKeys(String lane, long firstSecond, int count) {
    String[] keys = new String[count];
    for (int i = 0; i < count; i++) {
      keys[i] = key(lane, "stats:" + (firstSecond + i));
    }
    return keys;
  }

  @Override
  public double rate(String lane, double fallback) {
    String value = redis.get().get(key(lane, "rate"));
    return value == null ? fallback : Double.parseDouble(value);
  }

  @Override
  public void setRate(String lane, double callsPerSecond) {
    redis
        .get()
        .set(
            key(lane, "rate"),
            Double.toString(callsPerSecond),
            SetArgs.Builder.ex(Duration.ofDays(1)));
  }

  @Override
  public boolean lead(String lane, String owner, Duration ttl) {
    Long held =
        redis
            .get()
            .eval(
                LEAD,
                ScriptOutputType.INTEGER,
                new String[] {key(lane, "controller")},
                owner,
                Long.toString(ttl.toMillis()));
    return held != null && held == 1;
  }

  @Override
  public String kind() {
    return "redis";
  }
}
