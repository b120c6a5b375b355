package dev.questionflow.activities.lane;

import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * One caller at a time, the most urgent first (lowest Temporal priority key, then arrival): the
 * turn order of one lane's calls in this instance in front of its throttle. The server dispatches a
 * lane's calls by priority, but it hands a worker up to {@code max-concurrent} of them at once, and
 * the throttle gives its slots in the order callers ask: without this, a VIP call dispatched a
 * moment after four standard ones would also wait behind their four slots. A caller waits at most
 * until its deadline. Hand-written: the JDK has priority queues but no priority lock.
 */
final class UrgentFirst {

  /** How often a waiting caller runs its {@code whileWaiting} (the activity's heartbeat). */
  static final long CHECK_MILLIS = 1_000;

  private record Waiter(int priorityKey, long arrival) {}

  private final PriorityQueue<Waiter> waiting =
      new PriorityQueue<>(
          Comparator.comparingInt(Waiter::priorityKey).thenComparingLong(Waiter::arrival));

  private boolean taken;
  private long arrivals;

  /** Waits until no one more urgent (or as urgent and earlier) waits and the turn is free. */
  synchronized void enter(int priorityKey) throws InterruptedException {
    enter(priorityKey, Long.MAX_VALUE, () -> {});
  }

  /**
   * The same, until {@code deadlineEpochMillis} at most: false when the turn did not come by then.
   * {@code whileWaiting} runs about every {@link #CHECK_MILLIS}; what it throws ends the wait.
   */
  synchronized boolean enter(int priorityKey, long deadlineEpochMillis, Runnable whileWaiting)
      throws InterruptedException {
    Waiter me = new Waiter(priorityKey, arrivals++);
    waiting.add(me);
    try {
      while (taken || waiting.peek() != me) {
        long left = deadlineEpochMillis - System.currentTimeMillis();
        if (left <= 0) {
          waiting.remove(me);
          notifyAll(); // the next in line may be free to go now
          return false;
        }
        wait(Math.min(left, CHECK_MILLIS));
        whileWaiting.run();
      }
    } catch (InterruptedException | RuntimeException e) {
      waiting.remove(me);
      notifyAll();
      throw e;
    }
    waiting.poll();
    taken = true;
    return true;
  }

  synchronized void leave() {
    taken = false;
    notifyAll();
  }

  /** Callers waiting for their turn (not the one holding it). */
  synchronized int waiting() {
    return waiting.size();
  }
}
