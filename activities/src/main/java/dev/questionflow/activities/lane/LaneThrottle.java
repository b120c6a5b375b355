package dev.questionflow.activities.lane;

/**
 * Spaces a lane's model calls evenly at its rate (burst of one), in front of the model. The
 * Temporal server's task-queue rate limit decides which question goes next and holds the backlog;
 * its token bucket may still hand out a second's worth of tasks at once after a quiet moment, so
 * this smooths what the model provider sees to the quota in every 1 s window. Shared by all
 * instances (a Bucket4j bucket in Redis).
 */
public interface LaneThrottle {

  LaneThrottle NONE = (lane, rate) -> {};

  /** Blocks until the lane may make its next call at {@code callsPerSecond}. */
  void acquire(String lane, double callsPerSecond) throws InterruptedException;
}
