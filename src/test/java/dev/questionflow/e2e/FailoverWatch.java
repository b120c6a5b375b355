package dev.questionflow.e2e;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * kill -9 of a master, and what follows as seen from its replica (the heir), in ms from the kill:
 * when it was promoted; when the app's first script ran on it (the app found the new master without
 * a restart); when the killed node, started again on its folder only then, had synced as the heir's
 * replica (from then on WAIT 1 succeeds again); and when the app's stores wrote there again (the
 * lane's arrival counter moved: they may wait for the redis circuit breaker first).
 */
final class FailoverWatch {

  /** The figures, -1 where it did not happen within the watch. */
  record Figures(
      long killedAtEpochMillis,
      long promoted,
      long appBack,
      long killedNodeSynced,
      long storesBack) {}

  private static final Pattern SCRIPT_CALLS = Pattern.compile("cmdstat_eval(?:sha)?:calls=(\\d+)");

  private final RedisNode victim;
  private final RedisNode heir;
  private final String laneSeqKey;
  private final CompletableFuture<Figures> figures = new CompletableFuture<>();

  /**
   * @param laneSeqKey the lane's arrival counter, INCRed by every lane entry (on the victim)
   */
  FailoverWatch(RedisNode victim, RedisNode heir, String laneSeqKey) {
    this.victim = victim;
    this.heir = heir;
    this.laneSeqKey = laneSeqKey;
  }

  /** Kills the master now and watches in the background. */
  void kill() {
    CompletableFuture.runAsync(
        () -> {
          try {
            figures.complete(watch());
          } catch (Exception e) {
            figures.completeExceptionally(e);
          }
        });
  }

  /** Whether the watch is over (the stores are back, or it gave up). */
  boolean done() {
    return figures.isDone();
  }

  Figures figures(Duration atMost) throws Exception {
    return figures.get(atMost.toMillis(), TimeUnit.MILLISECONDS);
  }

  private Figures watch() throws Exception {
    RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", heir.port()));
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      RedisCommands<String, String> redis = c.sync();
      long killedAt = System.currentTimeMillis();
      long t0 = System.nanoTime();
      victim.kill9();
      long promoted = until(t0, 60, () -> heir.info("replication", "role").equals("master"));
      long[] before = {0, 0};
      until(
          t0,
          10,
          () -> {
            before[0] = scriptCalls(redis);
            before[1] = number(redis.get(laneSeqKey));
            return true;
          });
      // sentinels and replicas run no scripts: a new one is the app's
      long appBack = until(t0, 60, () -> scriptCalls(redis) > before[0]);
      // the killed node back only once the app uses its heir: a master started again sooner
      // (empty here, stale with its files) serves whoever still connects to its address until the
      // failover is complete (Lettuce asks the sentinels at most every 5 s)
      victim.start();
      long synced =
          until(t0, 90, () -> victim.info("replication", "master_link_status").equals("up"));
      long storesBack = until(t0, 180, () -> number(redis.get(laneSeqKey)) > before[1]);
      return new Figures(killedAt, promoted, appBack, synced, storesBack);
    } finally {
      client.shutdown();
    }
  }

  private static long scriptCalls(RedisCommands<String, String> redis) {
    Matcher m = SCRIPT_CALLS.matcher(redis.info("commandstats"));
    long calls = 0;
    while (m.find()) {
      calls += Long.parseLong(m.group(1));
    }
    return calls;
  }

  private static long number(String value) {
    return value == null ? 0 : Long.parseLong(value);
  }

  interface Check {
    boolean holds() throws Exception;
  }

  /** Ms from {@code t0} until {@code check} holds (polled every 50 ms), or -1 after the limit. */
  private static long until(long t0, int seconds, Check check) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      try {
        if (check.holds()) {
          return (System.nanoTime() - t0) / 1_000_000;
        }
      } catch (Exception notYet) {
        // the node is restarting, or still a replica
      }
      Thread.sleep(50);
    }
    return -1;
  }
}
