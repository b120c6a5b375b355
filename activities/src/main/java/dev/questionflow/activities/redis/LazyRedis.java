package dev.questionflow.activities.redis;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis of every store: one Lettuce client for the topology {@code REDIS_URL} names (one Redis,
 * a Sentinel-managed master, or a cluster: {@link RedisTopology}) and its shared connection, opened
 * at first use ({@link LazyLink}), so the service starts while Redis is down. Writes that must
 * survive a failover go through {@link #replicatedWrites()}.
 */
public final class LazyRedis
    implements Supplier<RedisClusterCommands<String, String>>, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LazyRedis.class);

  private final RedisConnector connector;
  private final LazyLink shared;
  private final LazyLink dedicated;
  private final ReplicatedWrites replicatedWrites;

  /**
   * @param commandTimeout each command's limit, and the connect timeout
   */
  public LazyRedis(String url, Duration commandTimeout, Duration retryInterval) {
    this(url, commandTimeout, retryInterval, null);
  }

  /**
   * @param url see {@link RedisTopology}; TLS ({@code rediss…}) verifies the server's certificate
   * @param tlsCa PEM file of a private CA that signed the server's certificate; null = the JDK's
   *     trusted CAs
   */
  public LazyRedis(String url, Duration commandTimeout, Duration retryInterval, Path tlsCa) {
    this(RedisTopology.parse(url), commandTimeout, retryInterval, tlsCa, 0, Duration.ofSeconds(1));
  }

  /**
   * @param waitReplicas the replicas that must acknowledge a {@link #replicatedWrites() replicated
   *     write} (0: none, no WAIT)
   * @param waitTimeout how long such a write waits for them
   */
  public LazyRedis(
      RedisTopology topology,
      Duration commandTimeout,
      Duration retryInterval,
      Path tlsCa,
      int waitReplicas,
      Duration waitTimeout) {
    this(
        topology,
        commandTimeout,
        retryInterval,
        tlsCa,
        waitReplicas,
        waitTimeout,
        io.lettuce.core.tracing.Tracing.disabled());
  }

  /** The same, each command traced by {@code tracing} (its span under the caller's). */
  public LazyRedis(
      RedisTopology topology,
      Duration commandTimeout,
      Duration retryInterval,
      Path tlsCa,
      int waitReplicas,
      Duration waitTimeout,
      io.lettuce.core.tracing.Tracing tracing) {
    if (tlsCa != null && !topology.ssl()) {
      // Lettuce would silently talk plain TCP: whoever set a CA expected TLS
      log.warn(
          "REDIS_TLS_CA is set but REDIS_URL is not rediss://: the CA is IGNORED and the connection to"
              + " Redis at {} is NOT encrypted. Use rediss:// for TLS, or unset REDIS_TLS_CA.",
          topology.describe());
    }
    this.connector = RedisConnector.of(topology, commandTimeout, waitTimeout, tlsCa, tracing);
    this.shared = new LazyLink(connector, retryInterval, "shared");
    this.dedicated = new LazyLink(connector, retryInterval, "replicated writes");
    this.replicatedWrites =
        new ReplicatedWrites(this, connector, dedicated, waitReplicas, waitTimeout);
  }

  /** The connector, for stores that need connections of their own codec (the token buckets). */
  public RedisConnector connector() {
    return connector;
  }

  public RedisTopology topology() {
    return connector.topology();
  }

  /** Writes that wait for {@code cs.redis.wait-replicas} replicas (tickets, FAQ changes). */
  public ReplicatedWrites replicatedWrites() {
    return replicatedWrites;
  }

  /**
   * The commands of the shared connection; throws (a RedisException) when Redis cannot be reached
   * now.
   */
  @Override
  public RedisClusterCommands<String, String> get() {
    return shared.get().sync();
  }

  public boolean connected() {
    return shared.connected();
  }

  @Override
  public void close() {
    shared.close();
    dedicated.close();
    connector.close();
  }
}
