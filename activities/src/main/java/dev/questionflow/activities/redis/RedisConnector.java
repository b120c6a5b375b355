package dev.questionflow.activities.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.tracing.Tracing;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Opens connections to one {@link RedisTopology} on one Lettuce client (its event loops shared by
 * all of them). Every command is bounded by the command timeout ({@link CommandTimeouts}) and
 * rejected at once while disconnected, instead of queued without bound; Lettuce reconnects by
 * itself, and follows a Sentinel failover or a cluster's new topology.
 */
public interface RedisConnector extends AutoCloseable {

  RedisTopology topology();

  /** Connects now; throws (a RedisException) when it cannot. */
  <V> RedisLink<V> connect(RedisCodec<String, V> codec);

  /** Connects in the background (a request never waits for it). */
  <V> CompletableFuture<RedisLink<V>> connectAsync(RedisCodec<String, V> codec);

  /**
   * A pub/sub connection (Lettuce resubscribes by itself after a reconnect); on a cluster, a
   * subscription on one node hears what is published on any.
   */
  StatefulRedisPubSubConnection<String, String> connectPubSub();

  /**
   * The commands of {@code link} that reach the master holding {@code key}, on one connection, so
   * that a WAIT after a write counts the replicas of that write: the link itself for a single Redis
   * and Sentinel (all its commands go to the master), the link's own connection to the slot's
   * master on a cluster (a cluster connection would send the key-less WAIT to any node).
   */
  RedisClusterCommands<String, String> toMasterOf(RedisLink<String> link, String key);

  /** Shuts the client down, with every connection opened on it. */
  @Override
  void close();

  /**
   * @param commandTimeout each command's limit, and the connect timeout
   * @param waitTimeout how long a WAIT may block on the server, on top of the command timeout
   * @param tlsCa PEM file of a private CA behind a TLS server's certificate; null = the JDK's CAs
   */
  static RedisConnector of(
      RedisTopology topology, Duration commandTimeout, Duration waitTimeout, Path tlsCa) {
    return of(topology, commandTimeout, waitTimeout, tlsCa, Tracing.disabled());
  }

  /**
   * The same, each command traced by {@code tracing} (a span per command; {@link
   * Tracing#disabled()}: Lettuce's own default resources, as without it).
   */
  static RedisConnector of(
      RedisTopology topology,
      Duration commandTimeout,
      Duration waitTimeout,
      Path tlsCa,
      Tracing tracing) {
    for (RedisURI node : topology.nodes()) {
      node.setTimeout(commandTimeout);
    }
    SslOptions ssl =
        tlsCa == null
            ? null
            : SslOptions.builder().jdkSslProvider().trustManager(tlsCa.toFile()).build();
    return topology.kind() == RedisTopology.Kind.CLUSTER
        ? ClusterConnector.create(
            topology, CommandTimeouts.options(commandTimeout, waitTimeout), ssl, tracing)
        : NodeConnector.create(
            topology, CommandTimeouts.options(commandTimeout, waitTimeout), ssl, tracing);
  }

  /**
   * A single Redis on a client the caller owns (and shuts down): for stores and tests that bring
   * their own.
   */
  static RedisConnector onClient(RedisClient client, RedisURI uri) {
    return new NodeConnector(
        client, new RedisTopology(RedisTopology.Kind.STANDALONE, java.util.List.of(uri)));
  }
}
