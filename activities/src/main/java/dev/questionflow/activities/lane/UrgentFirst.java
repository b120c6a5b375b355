package dev.questionflow.activities.lane;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

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

  /**
   * Not a monitor: {@code whileWaiting} (a heartbeat, a blocking call to Temporal) runs without it,
   * else every waiter's heartbeat would hold up {@link #leave} and the turns of the lane, and under
   * load the lane would serve a fraction of its rate (bin/bench peers, overload).
   */
  private final ReentrantLock lock = new ReentrantLock();

  private final Condition changed = lock.newCondition();
  private boolean taken;
  private long arrivals;

  /** Waits until no one more urgent (or as urgent and earlier) waits and the turn is free. */
  void enter(int priorityKey) throws InterruptedException {
    enter(priorityKey, Long.MAX_VALUE, () -> {});
  }

  /**
   * The same, until {@code deadlineEpochMillis} at most: false when the turn did not come by then.
   * {@code whileWaiting} runs about every {@link #CHECK_MILLIS}, outside the lock; what it throws
   * ends the wait.
   */
  boolean enter(int priorityKey, long deadlineEpochMillis, Runnable whileWaiting)
      throws InterruptedException {
    lock.lock();
    Waiter me = new Waiter(priorityKey, arrivals++);
    waiting.add(me);
    try {
      long nextCheck = System.currentTimeMillis() + CHECK_MILLIS;
      while (taken || waiting.peek() != me) {
        long now = System.currentTimeMillis();
        long left = deadlineEpochMillis - now;
        if (left <= 0) {
          waiting.remove(me);
          changed.signalAll(); // the next in line may be free to go now
          return false;
        }
        if (now >= nextCheck) {
          lock.unlock();
          try {
            whileWaiting.run();
          } finally {
            lock.lock();
          }
          nextCheck = System.currentTimeMillis() + CHECK_MILLIS;
          continue; // the turn may have come meanwhile
        }
        changed.await(Math.min(left, nextCheck - now), TimeUnit.MILLISECONDS);
      }
      waiting.poll();
      taken = true;
      return true;
    } catch (InterruptedException | RuntimeException e) {
      waiting.remove(me);
      changed.signalAll();
      throw e;
    } finally {
      lock.unlock();
    }
  }

  void leave() {
    lock.lock();
    try {
      taken = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Callers waiting for their turn (not the one holding it). */
  int waiting() {
    lock.lock();
    try {
      return waiting.size();
    } finally {
      lock.unlock();
    }
  }
}
