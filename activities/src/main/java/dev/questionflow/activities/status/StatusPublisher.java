package dev.questionflow.activities.status;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands published statuses to the store on a thread of its own, so a workflow thread never waits
 * for Redis. Per question only the newest waiting status is kept (an older one is worth nothing
 * once a newer exists); a failed write is tried again after {@code retryInterval} unless a newer
 * status of the question came meanwhile, so a Redis outage delays the news without losing the last
 * of it. Beyond {@code capacity} questions waiting, a new question's status is dropped ({@code
 * cs_status_published_total{result="dropped"}}): its streams then learn it from the next change, a
 * silence check, or Temporal.
 */
public final class StatusPublisher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StatusPublisher.class);

  private final StatusStore store;
  private final int capacity;
  private final Duration retryInterval;
  private final ConcurrentHashMap<String, PublishedStatus> waiting = new ConcurrentHashMap<>();
  private final LinkedBlockingQueue<String> order = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean closed;
  private final Counter published;
  private final Counter stale;
  private final Counter dropped;
  private final Counter failed;

  public StatusPublisher(
      StatusStore store, int capacity, Duration retryInterval, MeterRegistry meters) {
    this.store = store;
    this.capacity = Math.max(1, capacity);
    this.retryInterval = retryInterval;
    this.published = counter(meters, "published");
    this.stale = counter(meters, "stale");
    this.dropped = counter(meters, "dropped");
    this.failed = counter(meters, "failed");
    this.thread = new Thread(this::run, "status-publisher");
    thread.setDaemon(true);
    thread.start();
  }

  private static Counter counter(MeterRegistry meters, String result) {
    return Counter.builder("cs_status_published_total")
        .description(
            "Question statuses handed to the status store (stale: a newer one was there already)")
        .tag("result", result)
        .register(meters);
  }

  /** Queues the status; returns at once (runs on a workflow thread). */
  public void submit(PublishedStatus status) {
    if (waiting.size() >= capacity && !waiting.containsKey(status.workflowId())) {
      dropped.increment();
      return;
    }
    if (keepNewer(status)) {
      order.offer(status.workflowId());
    }
  }

  /** Keeps the newer of the waiting and this status; true when none was waiting. */
  private boolean keepNewer(PublishedStatus status) {
    boolean[] added = {false};
    waiting.compute(
        status.workflowId(),
        (id, current) -> {
          if (current == null) {
            added[0] = true;
            return status;
          }
          return current.version() >= status.version() ? current : status;
        });
    return added[0];
  }

  private void run() {
    while (!closed) {
      String workflowId;
      try {
        workflowId = order.take();
      } catch (InterruptedException e) {
        return;
      }
      PublishedStatus status = waiting.remove(workflowId);
      while (status != null && !closed) {
        try {
          (store.offer(status) ? published : stale).increment();
          status = null;
        } catch (RuntimeException e) {
          failed.increment();
          log.warn(
              "status of {} not published, trying again in {}: {}",
              workflowId,
              retryInterval,
              e.toString());
          if (!pause(retryInterval)) {
            return;
          }
          // a newer status that came meanwhile is published instead (it is in the queue already)
          PublishedStatus newer = waiting.get(workflowId);
          if (newer != null && newer.version() > status.version()) {
            status = null;
          }
        }
      }
    }
  }

  private static boolean pause(Duration duration) {
    try {
      TimeUnit.MILLISECONDS.sleep(duration.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Statuses waiting to be published (tests). */
  int waiting() {
    return waiting.size();
  }

  @Override
  public void close() {
    // what is queued gets a moment to go out (a SIGTERM's drain)
    long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    while (!waiting.isEmpty() && System.nanoTime() < until && pause(Duration.ofMillis(10))) {
      // waiting for the publisher thread
    }
    closed = true;
    thread.interrupt();
  }
}
