package dev.questionflow.activities.flowcontrol;

import dev.questionflow.workflows.generation.GenerationActivities;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import io.temporal.activity.Activity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wraps the model call of a lane: when its turn comes (the throttle), the question leaves the lane's waiting line; when it ends, its
 * outcome and duration feed the lane's statistics (positions, ETAs and the adaptive rate). The ledger never fails
 * a model call: its errors are logged and ignored.
 */
public class LaneTrackingGenerationActivities implements GenerationActivities {

  private static final Logger log = LoggerFactory.getLogger(LaneTrackingGenerationActivities.class);

  private final GenerationActivities delegate;
  private final LaneLedger ledger;
  private final LaneThrottle throttle;
  private final java.util.Map<String, Double> configuredRates;

  public LaneTrackingGenerationActivities(GenerationActivities delegate, LaneLedger ledger) {
    this(delegate, ledger, LaneThrottle.NONE, java.util.Map.of());
  }

  /**
   * @param configuredRates each lane's configured rate by task queue, until the adaptive controller stores another
   */
  public LaneTrackingGenerationActivities(
      GenerationActivities delegate,
      LaneLedger ledger,
      LaneThrottle throttle,
      java.util.Map<String, Double> configuredRates) {
    this.delegate = delegate;
    this.ledger = ledger;
    this.throttle = throttle;
    this.configuredRates = configuredRates;
  }

  @Override
  public GenerationResult generateAnswer(GenerationRequest request) {
    var info = Activity.getExecutionContext().getInfo();
    String lane = info.getActivityTaskQueue(); // the ledger's key for this lane
    String workflowId = info.getWorkflowId();
    Double configured = configuredRates.get(lane);
    if (configured != null) {
      double rate = configured;
      try {
        rate = ledger.rate(lane, configured);
      } catch (RuntimeException e) {
        log.warn("lane ledger unavailable, throttling at the configured rate: {}", e.toString());
      }
      try {
        throttle.acquire(lane, rate);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for lane " + lane, e);
      }
    }
    // leaves the waiting line only now, when its call goes out: while it waits for the throttle it is still a
    // question ahead of the ones behind it, and positions count it
    quietly(() -> ledger.started(lane, workflowId));
    long t0 = System.nanoTime();
    boolean ok = false;
    try {
      GenerationResult result = delegate.generateAnswer(request);
      ok = true;
      return result;
    } finally {
      long millis = (System.nanoTime() - t0) / 1_000_000;
      boolean success = ok;
      quietly(() -> ledger.finished(lane, success, millis));
    }
  }

  private static void quietly(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("lane ledger unavailable: {}", e.toString());
    }
  }
}
