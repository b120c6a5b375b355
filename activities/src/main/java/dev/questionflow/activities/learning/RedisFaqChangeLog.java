package dev.questionflow.activities.learning;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.questionflow.activities.redis.ReplicatedWrites;
import dev.questionflow.activities.redis.Reseal;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import dev.questionflow.workflows.codec.SealedText.Place;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change log in Redis, so that it survives restarts (with Redis persistence) and every instance
 * reads the same one. Per pack, under one hash tag ({@code cs:faq:{<pack>}:...}, so the scripts'
 * keys share a cluster slot):
 *
 * <ul>
 *   <li>{@code changes}: hash, version -> the change as JSON, its texts sealed ({@link SealedText}:
 *       a phrasing is customer text) to this key and the change's entry and ticket (the version is
 *       given by the append script, after the texts are sealed);
 *   <li>{@code reverts}: hash, version -> {@code {"by", "at"}} (a change itself is never
 *       rewritten);
 *   <li>{@code seq}: the last version; {@code rev}: bumped by every append and revert, the number
 *       instances poll;
 *   <li>{@code entries}: live learned entry id -> its version; {@code uses}: entry id -> number of
 *       live phrasings added to it.
 * </ul>
 *
 * Appends and reverts are Lua scripts, so their checks and writes are atomic across instances.
 */
public final class RedisFaqChangeLog implements FaqChangeLog, Reseal.Resealable {

  private static final Logger log = LoggerFactory.getLogger(RedisFaqChangeLog.class);

  /** KEYS: seq changes entries rev uses; ARGV: json, mode (new|learned|base), entry id. */
  static final String APPEND =
      """
      local mode = ARGV[2]
      if mode == 'new' and redis.call('HEXISTS', KEYS[3], ARGV[3]) == 1 then return -1 end
      if mode == 'learned' and redis.call('HEXISTS', KEYS[3], ARGV[3]) == 0 then return -2 end
      local v = redis.call('INCR', KEYS[1])
      redis.call('HSET', KEYS[2], v, ARGV[1])
      if mode == 'new' then
        redis.call('HSET', KEYS[3], ARGV[3], v)
      else
        redis.call('HINCRBY', KEYS[5], ARGV[3], 1)
      end
      redis.call('INCR', KEYS[4])
      return v
      """;

  /** KEYS: changes reverts entries rev uses; ARGV: version, revert json, kind, entry id. */
  static final String REVERT =
      """
      if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return -1 end
      if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return -2 end
      if ARGV[3] == 'ADD_ENTRY' then
        if tonumber(redis.call('HGET', KEYS[5], ARGV[4]) or '0') > 0 then return -3 end
        redis.call('HDEL', KEYS[3], ARGV[4])
      else
        redis.call('HINCRBY', KEYS[5], ARGV[4], -1)
      end
      redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
      return redis.call('INCR', KEYS[4])
      """;

  private record Revert(String by, Instant at) {}

  private final Supplier<RedisClusterCommands<String, String>> redis;
  private final ReplicatedWrites writes;
  private final SealedText sealed;
  private final String prefix;
  private final ObjectMapper json =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /**
   * @param redis the shared connection's commands, asked for at each use (LazyRedis)
   * @param sealed seals the texts ({@link SealedText#PLAIN}: stored as they are)
   */
  public RedisFaqChangeLog(
      Supplier<RedisClusterCommands<String, String>> redis, SealedText sealed, String packId) {
    this(redis, ReplicatedWrites.unwaited(redis), sealed, packId);
  }

  /**
   * @param writes appends and reverts wait for {@code cs.redis.wait-replicas}; when fewer
   *     acknowledge, a WARN says so and the change stands (a repeat would append it twice)
   */
  public RedisFaqChangeLog(
      Supplier<RedisClusterCommands<String, String>> redis,
      ReplicatedWrites writes,
      SealedText sealed,
      String packId) {
    this.redis = redis;
    this.writes = writes;
    this.sealed = sealed;
    this.prefix = "cs:faq:{" + packId + "}:";
  }

  private String key(String name) {
    return prefix + name;
  }

  @Override
  public FaqChange append(FaqChange change, boolean learnedEntry) {
    String mode =
        change.kind() == FaqChange.Kind.ADD_ENTRY ? "new" : learnedEntry ? "learned" : "base";
    String value = write(sealTexts(change.withVersion(0)));
    Long version =
        writes.write(
            key("seq"),
            ReplicatedWrites.Shortfall.WARN,
            r ->
                r.eval(
                    APPEND,
                    ScriptOutputType.INTEGER,
                    new String[] {
                      key("seq"), key("changes"), key("entries"), key("rev"), key("uses")
                    },
                    value,
                    mode,
                    change.entryId()));
    if (version == -1) {
      throw new ChangeRejected(
          ChangeRejected.Why.INVALID, "entry '" + change.entryId() + "' already exists");
    }
    if (version == -2) {
      throw new ChangeRejected(
          ChangeRejected.Why.INVALID, "no entry '" + change.entryId() + "' (it was reverted)");
    }
    return change.withVersion(version);
  }

  @Override
  public FaqChange revert(long version, String by, Instant at) {
    // kind and entry never change once written, so reading them before the script is safe
    FaqChange change = find(version);
    String revert = write(new Revert(by, at));
    Long result =
        writes.write(
            key("changes"),
            ReplicatedWrites.Shortfall.WARN,
            r ->
                r.eval(
                    REVERT,
                    ScriptOutputType.INTEGER,
                    new String[] {
                      key("changes"), key("reverts"), key("entries"), key("rev"), key("uses")
                    },
                    Long.toString(version),
                    revert,
                    change.kind().name(),
                    change.entryId()));
    if (result == -1) {
      throw new ChangeRejected(ChangeRejected.Why.NOT_FOUND, "no pack change " + version);
    }
    if (result == -2) {
      FaqChange current = find(version);
      throw new ChangeRejected(
          ChangeRejected.Why.CONFLICT,
          "pack change " + version + " was already reverted by " + current.revertedBy());
    }
    if (result == -3) {
      throw new ChangeRejected(
          ChangeRejected.Why.CONFLICT, InMemoryFaqChangeLog.stillUsed(change.entryId()));
    }
    return change.revertedBy(by, at);
  }

  private FaqChange find(long version) {
    String stored = redis.get().hget(key("changes"), Long.toString(version));
    if (stored == null) {
      throw new ChangeRejected(ChangeRejected.Why.NOT_FOUND, "no pack change " + version);
    }
    String revert = redis.get().hget(key("reverts"), Long.toString(version));
    return read(version, stored, revert);
  }

  /**
   * A change whose texts no configured key opens (sealed under a key since removed from
   * PAYLOAD_KEYS) is left out with a WARN: one such change must not take the others with it.
   */
  @Override
  public List<FaqChange> all() {
    Map<String, String> changes = redis.get().hgetall(key("changes"));
    Map<String, String> reverts = redis.get().hgetall(key("reverts"));
    List<FaqChange> out = new ArrayList<>(changes.size());
    for (Map.Entry<String, String> e : changes.entrySet()) {
      long version = Long.parseLong(e.getKey());
      try {
        out.add(read(version, e.getValue(), reverts.get(e.getKey())));
      } catch (PayloadKeys.UnknownKeyException
          | PayloadKeys.IntegrityException
          | SealedText.NotConfiguredException
          | SealedText.RefusedException ex) {
        log.warn("pack change {} left out: {}", version, ex.getMessage());
      }
    }
    out.sort(Comparator.comparingLong(FaqChange::version));
    return out;
  }

  @Override
  public long revision() {
    String rev = redis.get().get(key("rev"));
    return rev == null ? 0 : Long.parseLong(rev);
  }

  @Override
  public String kind() {
    return "redis";
  }

  private FaqChange read(long version, String stored, String revertJson) {
    try {
      FaqChange c = json.readValue(stored, FaqChange.class).withVersion(version);
      c =
          c.withTexts(
              sealed.open(c.text(), place(c, "text")),
              sealed.open(c.question(), place(c, "question")),
              sealed.open(c.answer(), place(c, "answer")));
      if (revertJson != null) {
        Revert r = json.readValue(revertJson, Revert.class);
        c = c.revertedBy(r.by(), r.at());
      }
      return c;
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Rewrites every change's texts as enc2 under the primary key (see {@link SealedText#reseal}). A
   * change is never rewritten by the app, so a failed compare-and-set means someone else's reseal.
   */
  @Override
  public Reseal.Count reseal() {
    Reseal.Tally tally = new Reseal.Tally();
    for (Map.Entry<String, String> e : redis.get().hgetall(key("changes")).entrySet()) {
      tally.examined();
      String where = key("changes") + " " + e.getKey();
      try {
        FaqChange c = json.readValue(e.getValue(), FaqChange.class);
        if (sealed.current(c.text())
            && sealed.current(c.question())
            && sealed.current(c.answer())) {
          continue;
        }
        String resealed =
            write(
                c.withTexts(
                    sealed.reseal(c.text(), place(c, "text")),
                    sealed.reseal(c.question(), place(c, "question")),
                    sealed.reseal(c.answer(), place(c, "answer"))));
        if (Reseal.hsetIf(redis.get(), key("changes"), e.getKey(), e.getValue(), resealed)) {
          tally.resealed();
        }
      } catch (JsonProcessingException ex) {
        tally.unreadable(where, new IllegalArgumentException("not a change's JSON"));
      } catch (RuntimeException ex) {
        if (!Reseal.unreadable(ex)) {
          throw ex;
        }
        tally.unreadable(where, ex);
      }
    }
    return tally.count();
  }

  @Override
  public String name() {
    return "FAQ changes";
  }

  private FaqChange sealTexts(FaqChange c) {
    return c.withTexts(
        sealed.seal(c.text(), place(c, "text")),
        sealed.seal(c.question(), place(c, "question")),
        sealed.seal(c.answer(), place(c, "answer")));
  }

  /**
   * Where a change's text is stored: the changes hash, the change's entry and ticket, the field.
   */
  private Place place(FaqChange c, String field) {
    return new Place(key("changes"), c.entryId() + "/" + c.ticketId() + "/" + field);
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
