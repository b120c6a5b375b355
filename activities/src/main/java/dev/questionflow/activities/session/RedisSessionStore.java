package dev.questionflow.activities.session;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.questionflow.activities.redis.Reseal;
import dev.questionflow.activities.redis.Scripts;
import dev.questionflow.workflows.codec.SealedText;
import dev.questionflow.workflows.codec.SealedText.Place;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions in Redis, shared by all instances. Keys of session {@code <sid>} (the braces are a Redis
 * Cluster hash tag, so the three keys live in one slot and a script may touch them together):
 *
 * <ul>
 *   <li>{@code cs:session:{<sid>}:line} LIST: workflow IDs still to finish, first in line at the
 *       head;
 *   <li>{@code cs:session:{<sid>}:members} HASH workflow ID -> JSON {@code {"p": predecessor, "t":
 *       joined at (ms), "d": finished at (ms, once finished), "n": the workflow that was behind it
 *       when it finished}}: what makes a retried join or finish return the same answer as the
 *       first;
 *   <li>{@code cs:session:{<sid>}:history} LIST of JSON {@link Turn}s, oldest first, trimmed to the
 *       last {@code max-turns}.
 * </ul>
 *
 * Every join and finish sets the TTL of all three keys to {@code cs.sessions.ttl} (PEXPIRE), so a
 * session is kept that long after its last message and a crashed question's line entry cannot
 * outlive it.
 *
 * <p><b>Atomicity:</b> join and finish are each one Lua script (EVALSHA). Redis runs a script to
 * the end before any other command, so "read the tail, append, record the predecessor" cannot
 * interleave with another instance's join or finish: concurrent joins form one strict chain, and
 * the check "already a member?" at the start of the script makes a retry return the recorded
 * predecessor instead of enqueueing twice. (MULTI/WATCH would need a client-side retry loop under
 * contention; a script needs none.) The clock is the caller's ({@code now} is an argument), which
 * is only used for the abandoned-entry and retry-window checks, both measured in minutes.
 */
public class RedisSessionStore implements SessionStore, Reseal.Resealable {

  private static final Logger log = LoggerFactory.getLogger(RedisSessionStore.class);

  private static final String KEY_PREFIX = "cs:session:{";

  /**
   * KEYS: line, members, history. ARGV: workflow ID, now (ms), ttl (ms). Returns the predecessor or
   * nil.
   */
  static final String JOIN_SCRIPT =
      """
      local wf, now, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
      local function touch()
        for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
      end
      local known = redis.call('HGET', KEYS[2], wf)
      if known then
        touch()
        local p = cjson.decode(known).p
        if p == nil or p == '' then return false end
        return p
      end
      -- drop abandoned questions at the head of the line: joined more than ttl ago and never finished
      while true do
        local head = redis.call('LINDEX', KEYS[1], 0)
        if not head then break end
        local h = redis.call('HGET', KEYS[2], head)
        if h and cjson.decode(h).t >= now - ttl then break end
        redis.call('LPOP', KEYS[1])
        redis.call('HDEL', KEYS[2], head)
      end
      -- forget finished members whose retry window is over
      local all = redis.call('HGETALL', KEYS[2])
      for i = 1, #all, 2 do
        local m = cjson.decode(all[i + 1])
        if m.d and m.d < now - ttl then redis.call('HDEL', KEYS[2], all[i]) end
      end
      local pred = redis.call('LINDEX', KEYS[1], -1)
      redis.call('RPUSH', KEYS[1], wf)
      redis.call('HSET', KEYS[2], wf, cjson.encode({p = pred or '', t = now}))
      touch()
      return pred
      """;

  /**
   * KEYS: line, members, history. ARGV: workflow ID, now (ms), ttl (ms), max turns, turn JSON ('' =
   * none). Returns the workflow that was directly behind, or nil.
   */
  static final String FINISH_SCRIPT =
      """
      local wf, now, ttl, maxTurns, turn = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
      local function touch()
        for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
      end
      local known = redis.call('HGET', KEYS[2], wf)
      local m = known and cjson.decode(known) or {p = '', t = now}
      if m.d then
        touch()
        if m.n == nil or m.n == '' then return false end
        return m.n
      end
      local nextWf = false
      local line = redis.call('LRANGE', KEYS[1], 0, -1)
      for i = 1, #line do
        if line[i] == wf then
          nextWf = line[i + 1] or false
          redis.call('LREM', KEYS[1], 1, wf)
          break
        end
      end
      if turn ~= '' then
        local seen = false
        for _, e in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
          local ok, t = pcall(cjson.decode, e)
          if ok and t.workflowId == wf then seen = true break end
        end
        if not seen then
          redis.call('RPUSH', KEYS[3], turn)
          if maxTurns > 0 then
            redis.call('LTRIM', KEYS[3], -maxTurns, -1)
          else
            redis.call('DEL', KEYS[3])
          end
        end
      end
      m.d = now
      m.n = nextWf or ''
      redis.call('HSET', KEYS[2], wf, cjson.encode(m))
      touch()
      return nextWf
      """;

  /**
   * The shared connection's commands, asked for at each use (see LazyRedis: it may not be connected
   * yet).
   */
  private final Supplier<RedisClusterCommands<String, String>> redis;

  private final SessionLimits limits;
  private final SealedText sealed;
  private final Clock clock;
  private final String joinSha;
  private final String finishSha;
  private final ObjectMapper json =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  public RedisSessionStore(
      Supplier<RedisClusterCommands<String, String>> redis, SessionLimits limits, Clock clock) {
    this(redis, limits, clock, SealedText.PLAIN);
  }

  /**
   * @param sealed seals each turn's question and answer to the session's history key and the turn's
   *     workflow ID (which stays readable: the finish script deduplicates by it)
   */
  public RedisSessionStore(
      Supplier<RedisClusterCommands<String, String>> redis,
      SessionLimits limits,
      Clock clock,
      SealedText sealed) {
    this.sealed = sealed;
    this.redis = redis;
    this.limits = limits;
    this.clock = clock;
    // computed here, not by the client: it may not be connected yet
    this.joinSha = Scripts.sha1(JOIN_SCRIPT);
    this.finishSha = Scripts.sha1(FINISH_SCRIPT);
  }

  public RedisSessionStore(
      StatefulRedisConnection<String, String> connection, SessionLimits limits, Clock clock) {
    this(connection::sync, limits, clock);
  }

  /** The key of one part ("line", "members", "history") of a session. */
  public static String key(String sessionId, String part) {
    return KEY_PREFIX + sessionId + "}:" + part;
  }

  private static String[] keys(String sessionId) {
    return new String[] {
      key(sessionId, "line"), key(sessionId, "members"), key(sessionId, "history")
    };
  }

  @Override
  public String join(String sessionId, String workflowId) {
    return run(
        JOIN_SCRIPT,
        joinSha,
        keys(sessionId),
        workflowId,
        String.valueOf(clock.millis()),
        String.valueOf(limits.ttl().toMillis()));
  }

  @Override
  public String finish(String sessionId, String workflowId, Turn turn) {
    return run(
        FINISH_SCRIPT,
        finishSha,
        keys(sessionId),
        workflowId,
        String.valueOf(clock.millis()),
        String.valueOf(limits.ttl().toMillis()),
        String.valueOf(limits.maxTurns()),
        turn == null ? "" : write(key(sessionId, "history"), turn));
  }

  @Override
  public List<Turn> history(String sessionId) {
    if (limits.maxTurns() == 0) {
      return List.of();
    }
    String key = key(sessionId, "history");
    List<Turn> turns = new ArrayList<>();
    for (String value : redis.get().lrange(key, -limits.maxTurns(), -1)) {
      try {
        turns.add(read(key, value));
      } catch (RuntimeException e) {
        if (!Reseal.unreadable(e)) {
          throw e;
        }
        // one turn no key opens (or refused) must not cost the customer the rest of the history;
        // the key is not logged: it holds the customer's user ID
        log.warn("a turn of a session's history left out: {}", e.getMessage());
      }
    }
    return List.copyOf(turns);
  }

  @Override
  public List<String> line(String sessionId) {
    return List.copyOf(redis.get().lrange(key(sessionId, "line"), 0, -1));
  }

  @Override
  public SessionLimits limits() {
    return limits;
  }

  @Override
  public String kind() {
    return "redis";
  }

  /** EVALSHA, loading the script on NOSCRIPT (after a Redis restart or SCRIPT FLUSH). */
  private String run(String script, String sha, String[] keys, String... args) {
    try {
      return redis.get().evalsha(sha, ScriptOutputType.VALUE, keys, args);
    } catch (RedisNoScriptException e) {
      return redis.get().eval(script, ScriptOutputType.VALUE, keys, args);
    }
  }

  /**
   * Rewrites every session's turns as enc2 under the primary key (see {@link SealedText#reseal}); a
   * history that changed meanwhile (a new turn, a trim) is read again.
   */
  @Override
  public Reseal.Count reseal() {
    Reseal.Count[] total = {Reseal.Count.NONE};
    Reseal.scan(
        redis.get(), KEY_PREFIX + "*}:history", key -> total[0] = total[0].plus(reseal(key)));
    return total[0];
  }

  @Override
  public String name() {
    return "session history";
  }

  private Reseal.Count reseal(String key) {
    for (int attempt = 0; attempt < 3; attempt++) {
      Reseal.Tally tally = new Reseal.Tally();
      if (resealPass(key, tally)) {
        return tally.count();
      }
    }
    Reseal.Tally gaveUp = new Reseal.Tally();
    gaveUp.unreadable(
        "a session's history", new IllegalStateException("changed three times while resealed"));
    return gaveUp.count();
  }

  /** One pass over a history; false when it changed under the pass. */
  private boolean resealPass(String key, Reseal.Tally tally) {
    List<String> values = redis.get().lrange(key, 0, -1);
    for (int i = 0; i < values.size(); i++) {
      String stored = values.get(i);
      tally.examined();
      Turn turn;
      try {
        turn = json.readValue(stored, Turn.class);
      } catch (JsonProcessingException e) {
        tally.unreadable("a session turn", new IllegalArgumentException("not a turn's JSON"));
        continue;
      }
      if (sealed.current(turn.question()) && sealed.current(turn.answer())) {
        continue;
      }
      String resealed;
      try {
        resealed =
            toJson(
                turn.withText(
                    sealed.reseal(turn.question(), place(key, turn, "question")),
                    sealed.reseal(turn.answer(), place(key, turn, "answer"))));
      } catch (RuntimeException e) {
        if (!Reseal.unreadable(e)) {
          throw e;
        }
        tally.unreadable("the session turn of " + turn.workflowId(), e);
        continue;
      }
      if (!Reseal.lsetIf(redis.get(), key, i, stored, resealed)) {
        return false;
      }
      tally.resealed();
    }
    return true;
  }

  /** Where a turn's text is stored: the history key, and the turn's workflow ID with the field. */
  static Place place(String historyKey, Turn turn, String field) {
    return new Place(historyKey, turn.workflowId() + "/" + field);
  }

  private String write(String historyKey, Turn turn) {
    return toJson(
        turn.withText(
            sealed.seal(turn.question(), place(historyKey, turn, "question")),
            sealed.seal(turn.answer(), place(historyKey, turn, "answer"))));
  }

  private String toJson(Turn turn) {
    try {
      return json.writeValueAsString(turn);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Turn read(String historyKey, String value) {
    try {
      Turn stored = json.readValue(value, Turn.class);
      return stored.withText(
          sealed.open(stored.question(), place(historyKey, stored, "question")),
          sealed.open(stored.answer(), place(historyKey, stored, "answer")));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
