package dev.questionflow.activities.redis;

import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a store's reseal (rewriting its stored text as {@code enc2}, see {@link SealedText}) needs:
 * a scan of its keys, writes that only replace the value that was read (an instance may write the
 * same key meanwhile, and what it writes is current already), and the counts.
 */
public final class Reseal {

  private static final Logger log = LoggerFactory.getLogger(Reseal.class);

  /** A store whose stored text can be rewritten in the current form. */
  public interface Resealable {
    /** What the store is, for the report (e.g. "tickets"). */
    String name();

    Count reseal();
  }

  /**
   * @param examined stored entries read (a ticket, a session turn, an FAQ change)
   * @param resealed entries rewritten
   * @param unreadable entries left as they were: no configured key opens them, or they are in an
   *     old form while only enc2 is accepted (a WARN each, with the key)
   */
  public record Count(long examined, long resealed, long unreadable) {
    public static final Count NONE = new Count(0, 0, 0);

    public Count plus(Count other) {
      return new Count(
          examined + other.examined, resealed + other.resealed, unreadable + other.unreadable);
    }
  }

  /** Counts one store's entries as its reseal goes. */
  public static final class Tally {
    private long examined;
    private long resealed;
    private long unreadable;

    public void examined() {
      examined++;
    }

    public void resealed() {
      resealed++;
    }

    /** An entry left as it was, with a WARN naming where (never its text). */
    public void unreadable(String where, RuntimeException e) {
      unreadable++;
      log.warn("reseal: {} left as it is: {}", where, e.getMessage());
    }

    public Count count() {
      return new Count(examined, resealed, unreadable);
    }
  }

  /** The failures that mean "this value cannot be opened here", as the stores' lists treat them. */
  public static boolean unreadable(RuntimeException e) {
    return e instanceof PayloadKeys.UnknownKeyException
        || e instanceof PayloadKeys.IntegrityException
        || e instanceof SealedText.NotConfiguredException
        || e instanceof SealedText.RefusedException;
  }

  /** SET to ARGV[2] if the value is still ARGV[1], keeping its TTL. */
  private static final String SET_IF =
      """
      if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
      local ttl = redis.call('PTTL', KEYS[1])
      redis.call('SET', KEYS[1], ARGV[2])
      if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
      return 1
      """;

  /** LSET index ARGV[1] to ARGV[3] if it still holds ARGV[2] (LSET keeps the TTL). */
  private static final String LSET_IF =
      """
      if redis.call('LINDEX', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
      redis.call('LSET', KEYS[1], ARGV[1], ARGV[3])
      return 1
      """;

  /** HSET field ARGV[1] to ARGV[3] if it still holds ARGV[2]. */
  private static final String HSET_IF =
      """
      if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
      redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
      return 1
      """;

  private Reseal() {}

  /** Every key matching the pattern (SCAN, so Redis is not blocked by a large keyspace). */
  public static void scan(
      RedisClusterCommands<String, String> redis, String pattern, Consumer<String> each) {
    ScanArgs args = ScanArgs.Builder.matches(pattern).limit(500);
    KeyScanCursor<String> cursor = redis.scan(args);
    while (true) {
      cursor.getKeys().forEach(each);
      if (cursor.isFinished()) {
        return;
      }
      cursor = redis.scan(cursor, args);
    }
  }

  public static boolean setIf(
      RedisClusterCommands<String, String> redis, String key, String expected, String value) {
    return one(redis.eval(SET_IF, ScriptOutputType.INTEGER, new String[] {key}, expected, value));
  }

  public static boolean lsetIf(
      RedisClusterCommands<String, String> redis,
      String key,
      long index,
      String expected,
      String value) {
    return one(
        redis.eval(
            LSET_IF,
            ScriptOutputType.INTEGER,
            new String[] {key},
            Long.toString(index),
            expected,
            value));
  }

  public static boolean hsetIf(
      RedisClusterCommands<String, String> redis,
      String key,
      String field,
      String expected,
      String value) {
    return one(
        redis.eval(HSET_IF, ScriptOutputType.INTEGER, new String[] {key}, field, expected, value));
  }

  private static boolean one(Object result) {
    return result instanceof Long n && n == 1L;
  }
}
