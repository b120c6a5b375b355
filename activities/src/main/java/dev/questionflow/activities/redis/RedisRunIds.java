package dev.questionflow.activities.redis;

import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.ArrayList;
import java.util.List;

/**
 * Which lives of the Redis servers hold the data: the {@code run_id} (INFO server) of the master,
 * new at each start and different on a promoted replica; on a cluster, those of every master
 * (sorted, hashed), so a failover of any of them is a new life too.
 */
public final class RedisRunIds {

  private RedisRunIds() {}

  public static String of(RedisClusterCommands<String, String> redis) {
    if (redis instanceof RedisAdvancedClusterCommands<String, String> cluster) {
      List<String> ids = new ArrayList<>();
      cluster.masters().commands().info("server").forEach(info -> ids.add(runId(info)));
      ids.sort(null);
      return "cluster-" + Scripts.sha1(String.join(",", ids));
    }
    return runId(redis.info("server"));
  }

  static String runId(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("run_id:")) {
        return line.substring("run_id:".length()).strip();
      }
    }
    return "unknown";
  }
}
