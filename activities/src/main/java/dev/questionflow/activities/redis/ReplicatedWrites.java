package dev.questionflow.activities.redis;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes of what must survive a failover (tickets, the FAQ change log): Redis replicates
 * asynchronously, so a master killed right after acknowledging a write may take it along while its
 * replica is promoted. With {@code cs.redis.wait-replicas} = n > 0 each such write is followed by
 * {@code WAIT n timeout} on the same connection to the key's master (a dedicated one: WAIT blocks
 * its connection on the server, and the shared one serves every other store), so it returns only
 * once n replicas have it. With 0 the writes go through the shared connection unchanged.
 */
public final class ReplicatedWrites {

  private static final Logger log = LoggerFactory.getLogger(ReplicatedWrites.class);

  /** What a write that fewer replicas acknowledged does. */
  public enum Shortfall {
    /** throws {@link NotReplicatedException}: the caller repeats the (idempotent) write */
    FAIL,
    /** logs a WARN and returns: for writes a repeat would duplicate */
    WARN
  }

  private final Supplier<RedisClusterCommands<String, String>> shared;
  private final RedisConnector connector;
  private final LazyLink dedicated;
  private final int replicas;
  private final Duration timeout;

  ReplicatedWrites(
      Supplier<RedisClusterCommands<String, String>> shared,
      RedisConnector connector,
      LazyLink dedicated,
      int replicas,
      Duration timeout) {
    this.shared = shared;
    this.connector = connector;
    this.dedicated = dedicated;
    this.replicas = replicas;
    this.timeout = timeout;
  }

  /** Writes through {@code redis} without waiting for replicas (tests, and wait-replicas 0). */
  public static ReplicatedWrites unwaited(Supplier<RedisClusterCommands<String, String>> redis) {
    return new ReplicatedWrites(redis, null, null, 0, Duration.ZERO);
  }

  public int replicas() {
    return replicas;
  }

  /**
   * Runs {@code write} (whose keys all share {@code key}'s slot) on the master holding {@code key},
   * then waits for the replicas.
   */
  public <T> T write(
      String key, Shortfall shortfall, Function<RedisClusterCommands<String, String>, T> write) {
    if (replicas <= 0) {
      return write.apply(shared.get());
    }
    RedisClusterCommands<String, String> master = connector.toMasterOf(dedicated.get(), key);
    T result = write.apply(master);
    long acknowledged = master.waitForReplication(replicas, timeout.toMillis());
    if (acknowledged < replicas) {
      NotReplicatedException e = new NotReplicatedException(key, acknowledged, replicas, timeout);
      if (shortfall == Shortfall.FAIL) {
        throw e;
      }
      log.warn("{}; not repeated (a repeat would duplicate it)", e.getMessage());
    }
    return result;
  }
}
