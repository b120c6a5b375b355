package dev.questionflow.activities.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisException;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.tracing.Tracing;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A Redis Cluster. Its topology is refreshed on every sign of a change (MOVED, ASK, failed
 * reconnects) and every 5 s: with Lettuce's default (never) the commands of a failed master's slots
 * kept failing after its replica was promoted; with these the stores resumed 3.5-4.7 s after a kill
 * -9 (cluster-node-timeout 2 s).
 */
final class ClusterConnector implements RedisConnector {

  static final Duration PERIODIC_REFRESH = Duration.ofSeconds(5);

  private final RedisClusterClient client;
  private final RedisTopology topology;

  private final TracedResources resources;

  private ClusterConnector(
      RedisClusterClient client, RedisTopology topology, TracedResources resources) {
    this.client = client;
    this.topology = topology;
    this.resources = resources;
  }

  static ClusterConnector create(
      RedisTopology topology, TimeoutOptions timeouts, SslOptions ssl, Tracing tracing) {
    TracedResources resources = TracedResources.of(tracing);
    RedisClusterClient client =
        resources == null
            ? RedisClusterClient.create(topology.nodes())
            : RedisClusterClient.create(resources.resources(), topology.nodes());
    ClusterClientOptions.Builder options =
        ClusterClientOptions.builder()
            .timeoutOptions(timeouts)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .autoReconnect(true)
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder()
                    .enableAllAdaptiveRefreshTriggers()
                    .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                    .refreshTriggersReconnectAttempts(1)
                    .enablePeriodicRefresh(PERIODIC_REFRESH)
                    .build());
    if (ssl != null) {
      options.sslOptions(ssl);
    }
    client.setOptions(options.build());
    return new ClusterConnector(client, topology, resources);
  }

  @Override
  public RedisTopology topology() {
    return topology;
  }

  @Override
  public <V> RedisLink<V> connect(RedisCodec<String, V> codec) {
    return RedisLink.of(client.connect(codec));
  }

  @Override
  public <V> CompletableFuture<RedisLink<V>> connectAsync(RedisCodec<String, V> codec) {
    try {
      return client.connectAsync(codec).thenApply(RedisLink::of);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public StatefulRedisPubSubConnection<String, String> connectPubSub() {
    return client.connectPubSub();
  }

  @Override
  public RedisClusterCommands<String, String> toMasterOf(RedisLink<String> link, String key) {
    StatefulRedisClusterConnection<String, String> cluster =
        (StatefulRedisClusterConnection<String, String>) link.connection();
    int slot = SlotHash.getSlot(key);
    RedisClusterNode master = cluster.getPartitions().getMasterBySlot(slot);
    if (master == null) {
      throw new RedisException("no master known for slot " + slot + " (topology being refreshed)");
    }
    // a node connection does not follow MOVED: a write that meets a demoted master fails and is
    // retried, after the next topology refresh, on the promoted one
    return cluster.getConnection(master.getNodeId()).sync();
  }

  @Override
  public void close() {
    client.shutdown();
    TracedResources.shutdown(resources);
  }
}
