package dev.questionflow.activities.lane;

import dev.questionflow.activities.redis.RedisRunIds;
import dev.questionflow.workflows.lane.Priorities;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The lanes' ledger in Redis, shared by every instance. Keys per lane {@code L} (the braces: a hash
 * tag, see {@link #key}):
 *
 * <ul>
 *   <li>{@code cs:lane:{L}:waiting} sorted set, member = workflow ID, score = priority key x 10^12
 *       + arrival number ({@code cs:lane:{L}:seq}): the server's dispatch order, so a member's rank
 *       is the number of questions ahead;
 *   <li>{@code cs:lane:{L}:enqueued} sorted set, score = the entry's queue deadline (entry time
 *       plus {@code staleAfter} for entries without one): no call starts after it, so an entry more
 *       than {@link #DEADLINE_GRACE_MILLIS} past it is stale (its question left without a call and
 *       the removal was lost) and is dropped on the next entry, so it cannot inflate positions;
 *   <li>{@code cs:lane:{L}:started} sorted set, score = start time: questions whose call started,
 *       kept for {@code startedKept} (twice the chain budget), so an entry that arrives after its
 *       call started (the entry and the call are scheduled together) is not counted as waiting;
 *   <li>{@code cs:lane:{L}:inflight} sorted set, member = call, score = start time: the lane's
 *       calls in flight across all instances (their limit: {@link LaneLedger#tryStartCall});
 *   <li>{@code cs:lane:{L}:stats:<epoch second>} hash {@code calls, ok, latency} of the calls that
 *       finished, {@code front} the entries at the front lines (expires after 2 windows);
 *   <li>{@code cs:lane:{L}:front-tickets} hash {@code tokens, at}: the front line's tickets ({@link
 *       #takeFrontTicket});
 *   <li>{@code cs:lane:{L}:rate} the current (adaptive) rate; {@code cs:lane:{L}:controller} the
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
   * The shared connection's commands, asked for at each use (see LazyRedis: it may not be connected
   * yet).
   */
  private final Supplier<RedisClusterCommands<String, String>> redis;

  private final Clock clock;
  private final Duration staleAfter;
  private final Duration startedKept;

  /**
   * @param staleAfter an entry without a deadline (a question from before deadlines) is stale after
   *     this
   * @param startedKept how long a started call is remembered (twice the chain budget)
   */
  public RedisLaneLedger(
      Supplier<RedisClusterCommands<String, String>> redis,
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

  /**
   * The braces are a Redis Cluster hash tag: all keys of a lane are in one slot, so a script may
   * touch them together. The ledger is a cache (see {@link LaneLedger}), so the keys from before
   * the tag ({@code cs:lane:<lane>:…}) are not moved: they expire or are swept.
   */
  static String key(String lane, String suffix) {
    return "cs:lane:{" + lane + "}:" + suffix;
  }

  @Override
  public long enter(String lane, String workflowId, int priorityKey, long deadlineEpochMillis) {
    long now = clock.millis();
    long deadline = deadlineEpochMillis > 0 ? deadlineEpochMillis : now + staleAfter.toMillis();
    Long rank =
        redis
            .get()
            .eval(
                LaneScripts.ENTER,
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
                LaneScripts.FRONT_TICKET,
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
            LaneScripts.LEAVE,
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
  public long[] deadlines(String lane, List<String> workflowIds) {
    if (workflowIds.isEmpty()) {
      return new long[0];
    }
    List<Double> scores =
        redis.get().zmscore(key(lane, "enqueued"), workflowIds.toArray(String[]::new));
    long[] deadlines = new long[workflowIds.size()];
    for (int i = 0; i < deadlines.length; i++) {
      Double score = scores == null || i >= scores.size() ? null : scores.get(i);
      deadlines[i] = score == null ? -1 : score.longValue();
    }
    return deadlines;
  }

  @Override
  public long sweep(String lane) {
    Long removed =
        redis
            .get()
            .eval(
                LaneScripts.SWEEP,
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
                LaneScripts.TRY_START,
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

  /** KEYS[1] the waiting set; ARGV workflow IDs. Each one's rank, or -1. */
  static final String POSITIONS =
      """
      local ranks = {}
      for i, id in ipairs(ARGV) do
        ranks[i] = redis.call('ZRANK', KEYS[1], id) or -1
      end
      return ranks
      """;

  @Override
  public long[] positions(String lane, List<String> workflowIds) {
    if (workflowIds.isEmpty()) {
      return new long[0];
    }
    List<Long> ranks =
        redis
            .get()
            .eval(
                POSITIONS,
                ScriptOutputType.MULTI,
                new String[] {key(lane, "waiting")},
                workflowIds.toArray(String[]::new));
    long[] positions = new long[workflowIds.size()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = ranks == null || i >= ranks.size() || ranks.get(i) == null ? -1 : ranks.get(i);
    }
    return positions;
  }

  @Override
  public void started(String lane, String workflowId) {
    redis
        .get()
        .eval(
            LaneScripts.STARTED,
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
    List<Long> sums = redis.get().eval(LaneScripts.STATS, ScriptOutputType.MULTI, keys);
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
    List<Long> counts =
        redis.get().eval(LaneScripts.PER_SECOND, ScriptOutputType.MULTI, keys, field);
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
                LaneScripts.LEAD,
                ScriptOutputType.INTEGER,
                new String[] {key(lane, "controller")},
                owner,
                Long.toString(ttl.toMillis()));
    return held != null && held == 1;
  }

  /** A new value after a restart or failover of the Redis (any master of a cluster) it is in. */
  @Override
  public String epoch() {
    return RedisRunIds.of(redis.get());
  }

  @Override
  public String kind() {
    return "redis";
  }
}
