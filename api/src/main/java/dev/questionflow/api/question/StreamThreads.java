package dev.questionflow.api.question;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The threads of this instance's event streams: the pollers that run each stream's next poll or
 * heartbeat, and the senders of published changes. Apart from {@link StatusStreams} so that the
 * pools, their sizes and their shutdown are in one place, and a test swaps all of them for its own
 * scheduler.
 */
final class StreamThreads {

  /**
   * Threads that send published changes: a write to a slow client blocks one of them, not the
   * feed's thread and every other stream behind it.
   */
  static final int SENDERS = 4;

  final StatusStreams.Scheduler scheduler;
  final Executor senders;

  /** Threads that send stage changes and answers, ahead of the places queued for the others. */
  final Executor changeSenders;

  private final ScheduledExecutorService poller;
  private final ExecutorService sendingPool;
  private final ExecutorService changePool;

  /**
   * @param scheduler null: a pool of two daemon threads
   */
  StreamThreads(StatusStreams.Scheduler scheduler) {
    if (scheduler == null) {
      ScheduledExecutorService pool =
          Executors.newScheduledThreadPool(
              2,
              r -> {
                Thread thread = new Thread(r, "sse-status-poller");
                thread.setDaemon(true);
                return thread;
              });
      this.poller = pool;
      this.scheduler = (task, delay) -> pool.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
      ExecutorService sending =
          Executors.newFixedThreadPool(
              SENDERS,
              r -> {
                Thread thread = new Thread(r, "sse-status-sender");
                thread.setDaemon(true);
                return thread;
              });
      this.sendingPool = sending;
      this.senders = sending;
      ExecutorService changes =
          Executors.newFixedThreadPool(
              2,
              r -> {
                Thread thread = new Thread(r, "sse-change-sender");
                thread.setDaemon(true);
                return thread;
              });
      this.changePool = changes;
      this.changeSenders = changes;
    } else {
      this.poller = null;
      this.scheduler = scheduler;
      this.sendingPool = null;
      this.senders = Runnable::run; // a test's deliveries are sent at once
      this.changePool = null;
      this.changeSenders = Runnable::run;
    }
  }

  void shutdown() {
    if (poller != null) {
      poller.shutdownNow();
    }
    if (sendingPool != null) {
      sendingPool.shutdownNow();
      changePool.shutdownNow();
    }
  }
}
