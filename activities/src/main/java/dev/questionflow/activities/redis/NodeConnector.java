package dev.questionflow.activities.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.masterreplica.MasterReplica;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.tracing.Tracing;
import java.util.concurrent.CompletableFuture;

/**
 * One Redis, or the master a Sentinel group names. Sentinel connections are Lettuce's
 * master/replica connections: they follow the sentinels' {@code +switch-master} to the promoted
 * replica (a plain connection to the old master's address lost writes in a failover drill: it kept
 * writing to a hung master), and send every command to the master.
 */
final class NodeConnector implements RedisConnector {

  private final RedisClient client;
  private final RedisTopology topology;
  private final RedisURI uri;
  private final TracedResources resources;

  NodeConnector(RedisClient client, RedisTopology topology) {
    this(client, topology, null);
  }

  private NodeConnector(RedisClient client, RedisTopology topology, TracedResources resources) {
    this.client = client;
    this.topology = topology;
    this.uri = topology.nodes().get(0);
    this.resources = resources;
  }

  static NodeConnector create(
      RedisTopology topology, TimeoutOptions timeouts, SslOptions ssl, Tracing tracing) {
    TracedResources resources = TracedResources.of(tracing);
    RedisClient client =
        resources == null ? RedisClient.create() : RedisClient.create(resources.resources());
    ClientOptions.Builder options =
        ClientOptions.builder()
            .timeoutOptions(timeouts)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .autoReconnect(true);
    if (ssl != null) {
      options.sslOptions(ssl);
    }
    client.setOptions(options.build());
    return new NodeConnector(client, topology, resources);
  }

  private boolean sentinel() {
    return topology.kind() == RedisTopology.Kind.SENTINEL;
  }

  @Override
  public RedisTopology topology() {
    return topology;
  }

  @Override
  public <V> RedisLink<V> connect(RedisCodec<String, V> codec) {
    return RedisLink.of(
        sentinel() ? MasterReplica.connect(client, codec, uri) : client.connect(codec, uri));
  }

  @Override
  public <V> CompletableFuture<RedisLink<V>> connectAsync(RedisCodec<String, V> codec) {
    try {
      return sentinel()
          ? MasterReplica.connectAsync(client, codec, uri).thenApply(RedisLink::of)
          : client.connectAsync(codec, uri).toCompletableFuture().thenApply(RedisLink::of);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public StatefulRedisPubSubConnection<String, String> connectPubSub() {
    // a Sentinel URI is resolved to the current master at each (re)connect
    return client.connectPubSub(uri);
  }

  @Override
  public RedisClusterCommands<String, String> toMasterOf(RedisLink<String> link, String key) {
    return link.sync();
  }

  @Override
  public void close() {
    client.shutdown();
    TracedResources.shutdown(resources);
  }
}
