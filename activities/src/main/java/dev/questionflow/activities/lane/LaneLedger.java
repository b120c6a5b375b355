package dev.questionflow.activities.lane;

import java.time.Duration;

/**
 * The shared state of the model lanes (Redis across instances, {@link InMemoryLaneLedger} for one):
 * who waits for each lane, in the order the Temporal server dispatches (priority key, then
 * arrival), the lane's recent calls, and its current (adaptive) rate.
 */
public interface LaneLedger {

  /**
   * Marks the question as waiting (idempotent per workflow ID) and returns how many wait ahead of
   * it; -1 (and no entry) when its call already started, which happens when the lane was free.
   */
  long enter(String lane, String workflowId, int priorityKey);

  /**
   * Questions ahead of this one, or -1 when it is not waiting (its call started, or it never
   * entered).
   */
  long position(String lane, String workflowId);

  /**
   * The question's model call started: it leaves the waiting line (and a later {@link #enter} is
   * ignored).
   */
  void started(String lane, String workflowId);

  /** Records one finished model call of the lane. */
  void finished(String lane, boolean success, long latencyMillis);

  /** Calls finished in the last {@code window}. */
  LaneStats stats(String lane, Duration window);

  /**
   * Calls finished in each of the last {@code seconds} complete seconds of the clock (oldest first;
   * the current, still counting second is left out).
   */
  long[] callsPerSecond(String lane, int seconds);

  /** The lane's current rate limit (calls/s), or {@code fallback} when none was set. */
  double rate(String lane, double fallback);

  void setRate(String lane, double callsPerSecond);

  /**
   * Leadership of the lane's rate controller for {@code ttl} (one instance adjusts a lane at a
   * time); true when this instance ({@code owner}) holds it.
   */
  boolean lead(String lane, String owner, Duration ttl);

  String kind();

  /**
   * @param calls finished calls, @param successes of those, @param meanLatencyMillis their mean
   *     duration
   */
  record LaneStats(long calls, long successes, double meanLatencyMillis) {
    public double successRate() {
      return calls == 0 ? 1.0 : (double) successes / calls;
    }
  }
}
