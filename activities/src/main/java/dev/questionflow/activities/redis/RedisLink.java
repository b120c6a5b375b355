package dev.questionflow.activities.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

/**
 * One open connection, whatever the topology, with the commands all topologies share ({@link
 * RedisClusterCommands}: a single node's and Sentinel's {@code RedisCommands} extend them, and a
 * cluster connection routes each by its key's slot).
 */
public record RedisLink<V>(
    StatefulConnection<String, V> connection,
    RedisClusterCommands<String, V> sync,
    RedisClusterAsyncCommands<String, V> async) {

  static <V> RedisLink<V> of(StatefulRedisConnection<String, V> connection) {
    return new RedisLink<>(connection, connection.sync(), connection.async());
  }

  static <V> RedisLink<V> of(StatefulRedisClusterConnection<String, V> connection) {
    return new RedisLink<>(connection, connection.sync(), connection.async());
  }

  public boolean isOpen() {
    return connection.isOpen();
  }
}
