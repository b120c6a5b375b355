package dev.questionflow.activities.lane;

/**
 * The Lua scripts of {@link RedisLaneLedger}. Each touches the keys of one lane only, all under the
 * lane's hash tag ({@code cs:lane:{<lane>}:…}), so on a Redis Cluster they share a slot.
 */
final class LaneScripts {

  private LaneScripts() {}

  /**
   * ARGV: workflow ID, priority key, now, started kept (ms), deadline (ms), grace (ms), the
   * standing line's key (below it an entry counts as a front-line arrival in the stats bucket,
   * KEYS[5]).
   */
  static final String ENTER =
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
  static final String FRONT_TICKET =
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

  static final String STARTED =
      """
      redis.call('ZREM', KEYS[1], ARGV[1])
      redis.call('ZREM', KEYS[2], ARGV[1])
      redis.call('ZADD', KEYS[3], tonumber(ARGV[2]), ARGV[1])
      redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
      """;

  /** ARGV: now, grace (ms), started kept (ms). */
  static final String SWEEP =
      """
      local now = tonumber(ARGV[1])
      local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[2]))
      for _, id in ipairs(stale) do
        redis.call('ZREM', KEYS[1], id)
        redis.call('ZREM', KEYS[2], id)
      end
      return #stale + redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[3]))
      """;

  static final String LEAVE =
      """
      redis.call('ZREM', KEYS[1], ARGV[1])
      redis.call('ZREM', KEYS[2], ARGV[1])
      """;

  /**
   * ARGV: call, now, cap, rate, mean latency (ms), lease (ms). Mirrors LaneLedger.inFlightLimit.
   */
  static final String TRY_START =
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

  static final String STATS =
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
  static final String PER_SECOND =
      """
      local counts = {}
      for i, key in ipairs(KEYS) do
        counts[i] = tonumber(redis.call('HGET', key, ARGV[1])) or 0
      end
      return counts
      """;

  static final String LEAD =
      """
      if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return 1
      end
      return 0
      """;
}
