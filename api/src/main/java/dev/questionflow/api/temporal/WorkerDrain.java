package dev.questionflow.api.temporal;

import io.temporal.worker.WorkerFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.stereotype.Component;

/**
 * Graceful worker shutdown. The Temporal starter's worker factory is a bean whose destroy method
 * only asks the workers to stop; nothing waits for them, so the service stubs closed right after
 * and a model call in flight could not report its answer (its question waited for the
 * start-to-close timeout and a retry). On SIGTERM the context's close event stops polling at once;
 * then, beside Tomcat's graceful shutdown in the same lifecycle phase, this waits up to {@code
 * cs.shutdown-grace} for the activities and workflow tasks in flight to finish and report, before
 * any bean is destroyed. A paused context (the test framework pauses cached ones) keeps its
 * workers.
 */
@Component
class WorkerDrain implements SmartLifecycle, ApplicationListener<ContextClosedEvent> {

  private static final Logger log = LoggerFactory.getLogger(WorkerDrain.class);

  /** Spring Boot's graceful web server shutdown phase: HTTP and workers drain together. */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

  /** Finish a little before Spring's per-phase timeout, so the drain's own log line is written. */
  private static final Duration MARGIN = Duration.ofMillis(500);

  private final ObjectProvider<WorkerFactory> factory;
  private final Duration grace;
  private volatile boolean running;

  /**
   * When the context began to close and the workers stopped polling (System.nanoTime); 0 while it
   * is not closing (a paused context, as the test framework pauses cached ones, is not closing).
   */
  private volatile long closingSince;

  WorkerDrain(
      ObjectProvider<WorkerFactory> factory, @Value("${cs.shutdown-grace:30s}") Duration grace) {
    this.factory = factory;
    this.grace = grace;
  }

  @Override
  public void start() {
    running = true;
  }

  /** Closing: no new tasks from now on, while HTTP and the lifecycle's stop phase begin. */
  @Override
  public void onApplicationEvent(ContextClosedEvent event) {
    closingSince = System.nanoTime();
    WorkerFactory workers = factory.getIfAvailable();
    if (workers != null && workers.isStarted() && !workers.isShutdown()) {
      log.info("draining the workers: no new tasks, up to {} for the ones in flight", grace);
      workers.shutdown();
    }
  }

  @Override
  public void stop() {
    drain();
  }

  @Override
  public void stop(Runnable callback) {
    if (closingSince == 0) { // a pause: the workers keep running, start() has nothing to restart
      running = false;
      callback.run();
      return;
    }
    Thread drainer =
        new Thread(
            () -> {
              try {
                drain();
              } finally {
                callback.run();
              }
            },
            "worker-drain");
    drainer.start();
  }

  private void drain() {
    running = false;
    WorkerFactory workers = factory.getIfAvailable();
    if (closingSince == 0 || workers == null || !workers.isStarted() || workers.isTerminated()) {
      return;
    }
    long started = closingSince; // they stopped polling then (onApplicationEvent)
    long waitMillis = Math.max(0, grace.minus(MARGIN).toMillis());
    workers.awaitTermination(waitMillis, TimeUnit.MILLISECONDS);
    double seconds = (System.nanoTime() - started) / 1e9;
    if (workers.isTerminated()) {
      log.info("workers drained in {} s", String.format("%.1f", seconds));
    } else {
      // what still runs is abandoned: its activities time out and are retried on another instance
      log.warn(
          "workers not drained after {} s (cs.shutdown-grace {}): tasks still in flight are"
              + " abandoned and retried elsewhere",
          String.format("%.1f", seconds),
          grace);
      workers.shutdownNow();
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
