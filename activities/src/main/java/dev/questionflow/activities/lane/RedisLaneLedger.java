package dev.questionflow.activities.lane;

import dev.questionflow.workflows.lane.Priorities;
import io.lettuce.core.Range;
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
 *   <li>{@code cs:lane:L:enqueued} sorted set, score = the entry's queue deadline (entry time plus
 *       {@code staleAfter} for entries without one): no call starts after it, so an entry more than
 *       {@link #DEADLINE_GRACE_MILLIS} past it is stale (its question left without a call and the
 *       removal was lost) and is dropped on the next entry, so it cannot inflate positions;
 *   <li>{@code cs:lane:L:started} sorted set, score = start time: questions whose call started,
 *       kept for {@code startedKept} (twice the chain budget), so an entry that arrives after its
 *       call started (the entry and the call are scheduled together) is not counted as waiting;
 *   <li>{@code cs:lane:L:inflight} sorted set, member = call, score = start time: the lane's calls
 *       in flight across all instances (their limit: {@link LaneLedger#tryStartCall});
 *   <li>{@code cs:lane:L:stats:<epoch second>} hash {@code calls, ok, latency} of the calls that
 *       finished, {@code front} the entries at the front lines (expires after 2 windows);
 *   <li>{@code cs:lane:L:front-tickets} hash {@code tokens, at}: the front line's tickets ({@link
 *       #takeFrontTicket});
 *   <li>{@code cs:lane:L:rate} the current (adaptive) rate; {@code cs:lane:L:controller} the
 *       controller's lease.
 * </ul>
 *
 * Entering is one Lua script (atomic, idempotent per workflow ID); the stats of a window are summed
 * by one script.
 */
public final class RedisLaneLedger implements LaneLedger {

  /** An entry this long past its deadline is stale: its question left the line without a call. */
  static final long DEADLINE_GRACE_MILLIS = 5_000;

  /**
   * ARGV: workflow ID, priority key, now, started kept (ms), deadline (ms), grace (ms), the
   * standing line's key (below it an entry counts as a front-line arrival in the stats bucket,
   * KEYS[5]).
   */
  private static final String ENTER =
      """
      local now = tonumber(ARGV[3])
      if tonumber(ARGV[2]) < tonumber(ARGV[7]) and not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
        redis.call('HINCRBY', KEYS[5], 'front', 1)
        redis.call('EXPIRE', KEYS[5], 600)
      end
      redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[4]))
      if redis.call('ZSCORE', KEYS[4], ARGV[1]) then
        return -1
      end
      local stale = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[6]))
      for _, id in ipairs(stale) do
        redis.call('ZREM', KEYS[1], id)
        redis.call('ZREM', KEYS[3], id)
      end
      if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
        local seq = redis.call('INCR', KEYS[2])
        redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) * 1000000000000 + seq, ARGV[1])
        redis.call('ZADD', KEYS[3], tonumber(ARGV[5]), ARGV[1])
      end
      return redis.call('ZRANK', KEYS[1], ARGV[1])
      """;

  /**
   * ARGV: now (ms), refill per second, capacity. A token bucket in one script rather than Bucket4j:
   * a burst's admissions take tickets at the same moment, and Bucket4j's Lettuce buckets are
   * compare-and-swap, whose retries under such contention ran past their time limit in the lane
   * throttle (see BucketLaneThrottle).
   */
  private static final String FRONT_TICKET =
      """
      local now = tonumber(ARGV[1])
      local rate = tonumber(ARGV[2])
      local capacity = tonumber(ARGV[3])
      local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
      local tokens = tonumber(b[1]) or capacity
      local at = tonumber(b[2]) or now
      tokens = math.min(capacity, tokens + math.max(0, now - at) / 1000 * rate)
      local taken = 0
      if tokens >= 1 then
        tokens = tokens - 1
        taken = 1
      end
      redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
      redis.call('PEXPIRE', KEYS[1], 600000)
      return taken
      """;

  private static final String STARTED =
      """
      redis.call('ZREM', KEYS[1], ARGV[1])
      redis.call('ZREM', KEYS[2], ARGV[1])
      redis.call('ZADD', KEYS[3], tonumber(ARGV[2]), ARGV[1])
      redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
      """;

  /** ARGV: now, grace (ms), started kept (ms). */
  private static final String SWEEP =
      """
      local now = tonumber(ARGV[1])
      local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[2]))
      for _, id in ipairs(stale) do
        redis.call('ZREM', KEYS[1], id)
        redis.call('ZREM', KEYS[2], id)
      end
      return #stale + redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[3]))
      """;

  private static final String LEAVE =
      """
      redis.call('ZREM', KEYS[1], ARGV[1])
      redis.call('ZREM', KEYS[2], ARGV[1])
      """;

  /**
   * ARGV: call, now, cap, rate, mean latency (ms), lease (ms). Mirrors LaneLedger.inFlightLimit.
   */
  private static final String TRY_START =
      """
      local now = tonumber(ARGV[2])
      local lease = tonumber(ARGV[6])
      redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - lease)
      if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
        return 1
      end
      local latency = tonumber(ARGV[5])
      local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
      if oldest[2] then
        latency = math.max(latency, now - tonumber(oldest[2]))
      end
      local rate = tonumber(ARGV[4])
      local limit = math.max(math.ceil(rate), math.ceil(rate * latency / 1000 * 1.25))
      limit = math.max(1, math.min(tonumber(ARGV[3]), limit))
      if redis.call('ZCARD', KEYS[1]) < limit then
        redis.call('ZADD', KEYS[1], now, ARGV[1])
        redis.call('PEXPIRE', KEYS[1], lease * 2)
        return 1
      end
      return 0
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

  /** ARGV: the stats field to read ({@code calls} or {@code front}). */
  private static final String PER_SECOND =
      """
      local counts = {}
      for i, key in ipairs(KEYS) do
        counts[i] = tonumber(redis.call('HGET', key, ARGV[1])) or 0
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
  private final Duration startedKept;

  /**
   * @param staleAfter an entry without a deadline (a question from before deadlines) is stale after
   *     this
   * @param startedKept how long a started call is remembered (twice the chain budget)
   */
  public RedisLaneLedger(
      Supplier<RedisCommands<String, String>> redis,
      Clock clock,
      Duration staleAfter,
      Duration startedKept) {
    this.redis = redis;
    this.clock = clock;
    this.staleAfter = staleAfter;
    this.startedKept = startedKept;
  }

  public RedisLaneLedger(
      StatefulRedisConnection<String, String> connection, Clock clock, Duration staleAfter) {
    this(connection::sync, clock, staleAfter, Duration.ofSeconds(60));
  }

  static double score(int priorityKey, long seq) {
    return priorityKey * 1e12 + seq;
  }

  private static String key(String lane, String suffix) {
    return "cs:lane:" + lane + ":" + suffix;
  }

  @Override
  public long enter(String lane, String workflowId, int priorityKey, long deadlineEpochMillis) {
    long now = clock.millis();
    long deadline = deadlineEpochMillis > 0 ? deadlineEpochMillis : now + staleAfter.toMillis();
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
                  key(lane, "started"),
                  key(lane, "stats:" + now / 1000)
                },
                workflowId,
                Integer.toString(priorityKey),
                Long.toString(now),
                Long.toString(startedKept.toMillis()),
                Long.toString(deadline),
                Long.toString(DEADLINE_GRACE_MILLIS),
                Integer.toString(Priorities.STANDING_KEY));
    return rank == null ? -1 : rank;
  }

  @Override
  public boolean takeFrontTicket(String lane, double perSecond, double capacity) {
    Long taken =
        redis
            .get()
            .eval(
                FRONT_TICKET,
                ScriptOutputType.INTEGER,
                new String[] {key(lane, "front-tickets")},
                Long.toString(clock.millis()),
                Double.toString(perSecond),
                Double.toString(capacity));
    return taken != null && taken == 1;
  }

  @Override
  public long waitingAhead(String lane, int priorityKey) {
    // every score below the next priority key's: equal or higher priority, any arrival
    return redis.get().zcount(key(lane, "waiting"), Range.create(0, score(priorityKey + 1, 0) - 1));
  }

  @Override
  public void leave(String lane, String workflowId) {
    redis
        .get()
        .eval(
            LEAVE,
            ScriptOutputType.STATUS,
            new String[] {key(lane, "waiting"), key(lane, "enqueued")},
            workflowId);
  }

  @Override
  public long deadline(String lane, String workflowId) {
    Double score = redis.get().zscore(key(lane, "enqueued"), workflowId);
    return score == null ? -1 : score.longValue();
  }

  @Override
  public long sweep(String lane) {
    Long removed =
        redis
            .get()
            .eval(
                SWEEP,
                ScriptOutputType.INTEGER,
                new String[] {key(lane, "waiting"), key(lane, "enqueued"), key(lane, "started")},
                Long.toString(clock.millis()),
                Long.toString(DEADLINE_GRACE_MILLIS),
                Long.toString(startedKept.toMillis()));
    return removed == null ? 0 : removed;
  }

  @Override
  public List<String> overdue(String lane, long epochMillis) {
    return redis.get().zrangebyscore(key(lane, "enqueued"), Range.create(0, epochMillis - 1));
  }

  @Override
  public boolean tryStartCall(
      String lane, String callId, int cap, double rate, long meanLatencyMillis, long leaseMillis) {
    Long ok =
        redis
            .get()
            .eval(
                TRY_START,
                ScriptOutputType.INTEGER,
                new String[] {key(lane, "inflight")},
                callId,
                Long.toString(clock.millis()),
                Integer.toString(cap),
                Double.toString(rate),
                Long.toString(meanLatencyMillis),
                Long.toString(leaseMillis));
    return ok != null && ok == 1;
  }

  @Override
  public void endCall(String lane, String callId) {
    redis.get().zrem(key(lane, "inflight"), callId);
  }

  @Override
  public long callsInFlight(String lane) {
    return redis.get().zcard(key(lane, "inflight"));
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
            Long.toString(clock.millis()),
            Long.toString(startedKept.toMillis()));
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
    return perSecond(lane, seconds, "calls");
  }

  @Override
  public long[] frontArrivalsPerSecond(String lane, int seconds) {
    return perSecond(lane, seconds, "front");
  }

  private long[] perSecond(String lane, int seconds, String field) {
    // complete seconds only: the current one is left out
    String[] keys = statsKeys(lane, clock.millis() / 1000 - seconds, seconds);
    List<Long> counts = redis.get().eval(PER_SECOND, ScriptOutputType.MULTI, keys, field);
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
  public String epoch() {
    String info = redis.get().info("server");
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("run_id:")) {
        return line.substring("run_id:".length()).strip();
      }
    }
    return "unknown";
  }

  @Override
  public String kind() {
    return "redis";
  }
}
