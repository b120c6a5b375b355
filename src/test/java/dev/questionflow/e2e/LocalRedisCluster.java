package dev.questionflow.e2e;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of real processes: three masters, one replica each, cluster-node-timeout 2 s (a
 * master is failed over about 2-4 s after it stops answering). Made with {@code redis-cli --cluster
 * create}; a killed node started again on its folder rejoins as a replica of the promoted one.
 */
final class LocalRedisCluster implements AutoCloseable {

  static final int NODE_TIMEOUT_MILLIS = 2000;

  private final List<RedisNode> nodes = new ArrayList<>();

  /** One line of CLUSTER NODES: what the cluster thinks of a node. */
  record Member(String id, int port, boolean master, String masterId, List<int[]> slots) {
    boolean owns(int slot) {
      return slots.stream().anyMatch(r -> r[0] <= slot && slot <= r[1]);
    }
  }

  static LocalRedisCluster start(Path dir) throws Exception {
    LocalRedisCluster cluster = new LocalRedisCluster();
    try {
      for (int i = 0; i < 6; i++) {
        int port = RedisNode.freePort(true);
        cluster.nodes.add(
            RedisNode.server(
                    port,
                    dir.resolve("node-" + port),
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    String.valueOf(NODE_TIMEOUT_MILLIS))
                .start());
      }
      List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
      cluster.nodes.forEach(n -> create.add(n.address()));
      create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
      RedisNode.run(create);
      cluster.awaitHealthy();
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** Every node says the cluster is ok, three masters serve all slots, every replica has synced. */
  void awaitHealthy() {
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              for (RedisNode node : nodes) {
                if (!node.alive() || !node.cli("CLUSTER", "INFO").contains("cluster_state:ok")) {
                  return false;
                }
                if (node.info("replication", "role").equals("slave")
                    && !node.info("replication", "master_link_status").equals("up")) {
                  return false;
                }
              }
              List<Member> members = members();
              return members.stream().filter(Member::master).count() == 3
                  && members.stream().filter(m -> !m.master()).count() == 3;
            });
  }

  /** The seeds of {@code redis-cluster://}: every node. */
  String url() {
    return "redis-cluster://"
        + nodes.stream().map(RedisNode::address).collect(Collectors.joining(","));
  }

  /** The cluster as a node that is up sees it. */
  List<Member> members() throws Exception {
    RedisNode asked = nodes.stream().filter(RedisNode::alive).findFirst().orElseThrow();
    List<Member> members = new ArrayList<>();
    for (String line : asked.cli("CLUSTER", "NODES").split("\r?\n")) {
      String[] f = line.trim().split(" ");
      if (f.length < 8 || f[2].contains("fail") || f[2].contains("noaddr")) {
        continue;
      }
      int port = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
      List<int[]> slots = new ArrayList<>();
      for (int i = 8; i < f.length; i++) {
        if (f[i].startsWith("[")) {
          continue; // a slot being migrated
        }
        String[] range = f[i].split("-");
        int from = Integer.parseInt(range[0]);
        slots.add(new int[] {from, range.length > 1 ? Integer.parseInt(range[1]) : from});
      }
      members.add(new Member(f[0], port, f[2].contains("master"), f[3], slots));
    }
    return members;
  }

  /** The master serving {@code slot} now. */
  Member masterOf(int slot) throws Exception {
    return members().stream()
        .filter(m -> m.master() && m.owns(slot))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no master for slot " + slot));
  }

  /** The replica of a master. */
  Member replicaOf(Member master) throws Exception {
    return members().stream()
        .filter(m -> !m.master() && m.masterId().equals(master.id()))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no replica of " + master.port()));
  }

  RedisNode node(int port) {
    return nodes.stream().filter(n -> n.port() == port).findFirst().orElseThrow();
  }

  @Override
  public void close() throws InterruptedException {
    for (RedisNode node : nodes) {
      node.close();
    }
  }
}
