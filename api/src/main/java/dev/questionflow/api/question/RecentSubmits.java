package dev.questionflow.api.question;

import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Questions submitted within the last window, so a repeated submit (a second click on "send", a
 * client's retry) is answered as a duplicate without a call to Temporal: it does not start or
 * describe a workflow more than once per window. Shared through Redis when configured; otherwise
 * per instance (Temporal still refuses a second start).
 */
abstract class RecentSubmits {

  private static final Logger log = LoggerFactory.getLogger(RecentSubmits.class);

  /**
   * True for the first submit of the workflow in the window (it goes on to Temporal), false for a
   * repeat.
   */
  abstract boolean first(String workflowId);

  /** Forgets a submit that was not accepted, so the caller's retry goes through. */
  abstract void forget(String workflowId);

  static RecentSubmits redis(
      Supplier<RedisClusterCommands<String, String>> redis, Duration window) {
    return new RecentSubmits() {
      @Override
      boolean first(String workflowId) {
        try {
          String set =
              redis.get().set(key(workflowId), "1", SetArgs.Builder.nx().px(window.toMillis()));
          return "OK".equals(set);
        } catch (RuntimeException e) {
          log.debug("recent submits unavailable ({}): asking Temporal", e.toString());
          return true; // Temporal's own duplicate check still holds
        }
      }

      @Override
      void forget(String workflowId) {
        try {
          redis.get().del(key(workflowId));
        } catch (RuntimeException e) {
          log.debug("could not forget a submit: {}", e.toString());
        }
      }

      private String key(String workflowId) {
        return "cs:submitted:" + workflowId;
      }
    };
  }

  /**
   * In process memory: a bounded map of the last submits (the JDK's LinkedHashMap as an LRU; no
   * cache library here).
   */
  static RecentSubmits inMemory(Duration window, int maxEntries) {
    long windowNanos = window.toNanos();
    Map<String, Long> seen =
        new LinkedHashMap<>(256, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > maxEntries;
          }
        };
    return new RecentSubmits() {
      @Override
      synchronized boolean first(String workflowId) {
        long now = System.nanoTime();
        Long at = seen.get(workflowId);
        if (at != null && now - at < windowNanos) {
          return false;
        }
        seen.remove(workflowId);
        seen.put(workflowId, now);
        return true;
      }

      @Override
      synchronized void forget(String workflowId) {
        seen.remove(workflowId);
      }
    };
  }
}
