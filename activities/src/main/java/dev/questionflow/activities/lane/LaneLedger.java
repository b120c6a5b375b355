package dev.questionflow.activities.lane;

import java.time.Duration;
import java.util.List;

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
  default long enter(String lane, String workflowId, int priorityKey) {
    return enter(lane, workflowId, priorityKey, 0);
  }

  /**
   * The same with the question's queue deadline: its call does not start after it, so the entry is
   * stale soon after (0 = none: stale after the ledger's {@code staleAfter}).
   */
  long enter(String lane, String workflowId, int priorityKey, long deadlineEpochMillis);

  /**
   * New entries at the front lines (priority keys below {@link
   * dev.questionflow.workflows.lane.Priorities#STANDING_KEY}) in each of the last {@code seconds}
   * complete seconds (oldest first), counted by {@link #enter} whether or not the call had started:
   * the share of the lane's rate the front lines take, so what is left for the standing line.
   */
  long[] frontArrivalsPerSecond(String lane, int seconds);

  /**
   * Takes one of the lane's front-line tickets: a bucket of {@code capacity} refilled at {@code
   * perSecond} (the lane's service rate), so that questions admitted at the same moment, which all
   * read the line before any of them has entered it, cannot together make it longer than it may be.
   */
  boolean takeFrontTicket(String lane, double perSecond, double capacity);

  /** How many of equal or higher priority wait now: where a question entering now would stand. */
  long waitingAhead(String lane, int priorityKey);

  /** The question left the line without a call: its entry is removed (idempotent). */
  void leave(String lane, String workflowId);

  /** The deadline of the question's entry (its stale time for entries without one), or -1. */
  long deadline(String lane, String workflowId);

  /**
   * {@link #deadline} of each question, in one round trip where the store allows: what an instance
   * that streams many questions reads when they join a line.
   */
  default long[] deadlines(String lane, List<String> workflowIds) {
    long[] deadlines = new long[workflowIds.size()];
    for (int i = 0; i < deadlines.length; i++) {
      deadlines[i] = deadline(lane, workflowIds.get(i));
    }
    return deadlines;
  }

  /**
   * Removes what no question needs any more: entries more than a grace past their deadline (their
   * question left the line without a call and the removal was lost, e.g. by a Redis restart) and
   * started calls older than the ledger keeps them. Returns how many entries were removed.
   */
  long sweep(String lane);

  /** Questions in line whose deadline was before {@code epochMillis}. */
  List<String> overdue(String lane, long epochMillis);

  /**
   * Takes a place among the lane's calls in flight for {@code callId} if fewer than the limit run
   * (idempotent per call): {@code min(cap, max(ceil(rate), ceil(rate x latency x 1.25)))}, with
   * latency the larger of {@code meanLatencyMillis} and the age of the oldest call still running
   * (Little's law: a model that slows down gets more calls in flight as it slows, not after). A
   * place not given back is dropped after {@code leaseMillis}.
   */
  boolean tryStartCall(
      String lane, String callId, int cap, double rate, long meanLatencyMillis, long leaseMillis);

  /** The call is over: its place among the calls in flight is free. */
  void endCall(String lane, String callId);

  /** Calls of the lane in flight now (of all instances). */
  long callsInFlight(String lane);

  /** The limit of {@link #tryStartCall} (RedisLaneLedger's script computes the same). */
  static long inFlightLimit(int cap, double rate, double latencyMillis) {
    long little = (long) Math.ceil(rate * latencyMillis / 1000 * 1.25);
    return Math.max(1, Math.min(cap, Math.max((long) Math.ceil(rate), little)));
  }

  /**
   * Questions ahead of this one, or -1 when it is not waiting (its call started, or it never
   * entered).
   */
  long position(String lane, String workflowId);

  /**
   * {@link #position} of each question, in one round trip where the store allows: what an instance
   * streaming many waiting questions reads once per change of the line.
   */
  default long[] positions(String lane, List<String> workflowIds) {
    long[] positions = new long[workflowIds.size()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = position(lane, workflowIds.get(i));
    }
    return positions;
  }

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
   * The store's current life: changes when it restarted (Redis's run ID), after which removals of
   * its last moments may have been lost and entries may have come back.
   */
  String epoch();

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
