package dev.questionflow.e2e;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Sentinel group of real processes: one master, one replica, three sentinels (quorum 2,
 * down-after-milliseconds 2000): the replica is promoted about 3-4 s after the master stops
 * answering. A killed master started again is turned into a replica of the new one by the
 * sentinels.
 */
final class LocalSentinelGroup implements AutoCloseable {

  static final String MASTER_NAME = "mymaster";
  static final int DOWN_AFTER_MILLIS = 2000;

  private final List<RedisNode> data = new ArrayList<>();
  private final List<RedisNode> sentinels = new ArrayList<>();

  static LocalSentinelGroup start(Path dir) throws Exception {
    LocalSentinelGroup group = new LocalSentinelGroup();
    try {
      int masterPort = RedisNode.freePort(false);
      RedisNode master = RedisNode.server(masterPort, dir.resolve("data-" + masterPort)).start();
      int replicaPort = RedisNode.freePort(false);
      RedisNode replica =
          RedisNode.server(
                  replicaPort,
                  dir.resolve("data-" + replicaPort),
                  "--replicaof",
                  "127.0.0.1",
                  String.valueOf(masterPort))
              .start();
      group.data.add(master);
      group.data.add(replica);
      for (int i = 0; i < 3; i++) {
        int port = RedisNode.freePort(false);
        group.sentinels.add(
            RedisNode.sentinel(
                    port,
                    dir.resolve("sentinel-" + port),
                    "sentinel monitor "
                        + MASTER_NAME
                        + " 127.0.0.1 "
                        + masterPort
                        + " 2\n"
                        + "sentinel down-after-milliseconds "
                        + MASTER_NAME
                        + " "
                        + DOWN_AFTER_MILLIS
                        + "\nsentinel failover-timeout "
                        + MASTER_NAME
                        + " 10000\nsentinel parallel-syncs "
                        + MASTER_NAME
                        + " 1\n")
                .start());
      }
      group.awaitHealthy(replica);
      return group;
    } catch (Exception | Error e) {
      group.close();
      throw e;
    }
  }

  /** The replica has synced, and every sentinel knows it and the two other sentinels. */
  void awaitHealthy(RedisNode replica) {
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              if (!replica.info("replication", "master_link_status").equals("up")) {
                return false;
              }
              for (RedisNode sentinel : sentinels) {
                String master = sentinel.cli("SENTINEL", "MASTER", MASTER_NAME);
                if (!master.contains("num-slaves\n1")
                    || !master.contains("num-other-sentinels\n2")) {
                  return false;
                }
              }
              return true;
            });
  }

  String url() {
    return "redis-sentinel://"
        + sentinels.stream().map(RedisNode::address).collect(Collectors.joining(","))
        + "#"
        + MASTER_NAME;
  }

  /** The data node the sentinels name master now. */
  RedisNode master() throws Exception {
    String[] address =
        sentinels.get(0).cli("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME).split("\r?\n");
    int port = Integer.parseInt(address[address.length - 1].strip());
    return data.stream().filter(n -> n.port() == port).findFirst().orElseThrow();
  }

  /** The other data node. */
  RedisNode other(RedisNode node) {
    return data.stream().filter(n -> n != node).findFirst().orElseThrow();
  }

  @Override
  public void close() throws InterruptedException {
    for (RedisNode node : sentinels) {
      node.close();
    }
    for (RedisNode node : data) {
      node.close();
    }
  }
}
