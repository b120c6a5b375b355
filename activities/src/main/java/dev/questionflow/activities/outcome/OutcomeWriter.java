package dev.questionflow.activities.outcome;

import dev.questionflow.workflows.outcome.QuestionRecord;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes records on a thread of its own, so a workflow thread never waits for Redis: a full queue
 * drops the record ({@code cs_outcomes_dropped_total}), a failed write is counted ({@code
 * cs_outcomes_failed_total}) and not retried; analytics is best effort.
 */
public final class OutcomeWriter implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutcomeWriter.class);

  private final OutcomeStream stream;
  private final ThreadPoolExecutor executor;
  private final Counter written;
  private final Counter duplicates;
  private final Counter dropped;
  private final Counter failed;

  public OutcomeWriter(OutcomeStream stream, int queueCapacity, MeterRegistry meters) {
    this.stream = stream;
    this.executor =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(Math.max(1, queueCapacity)),
            runnable -> {
              Thread thread = new Thread(runnable, "outcome-writer");
              thread.setDaemon(true);
              return thread;
            });
    this.written = meters.counter("cs_outcomes_written");
    this.duplicates = meters.counter("cs_outcomes_duplicate");
    this.dropped = meters.counter("cs_outcomes_dropped");
    this.failed = meters.counter("cs_outcomes_failed");
  }

  /** Queues the record; returns at once. */
  public void submit(QuestionRecord record) {
    try {
      executor.execute(() -> write(record));
    } catch (RejectedExecutionException e) {
      dropped.increment();
    }
  }

  private void write(QuestionRecord record) {
    try {
      (stream.append(record) ? written : duplicates).increment();
    } catch (RuntimeException e) {
      failed.increment();
      log.warn(
          "outcome of {} not written: {}: {}",
          record.workflowId(),
          e.getClass().getSimpleName(),
          e.getMessage());
    }
  }

  @Override
  public void close() {
    executor.shutdown();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
