package dev.questionflow.activities.generation;

/**
 * What runs around each model call, right at the HTTP request: the model lanes throttle and account
 * their calls here ({@code lane.LaneGate}). Being the last thing before the request matters:
 * anything slow between the throttle and the request (a Redis read on a loaded machine, say) would
 * let calls spaced by the throttle bunch up again before the provider sees them.
 */
public interface ModelCallGate {

  ModelCallGate OPEN =
      new ModelCallGate() {
        @Override
        public void beforeCall() {}

        @Override
        public void afterCall(boolean healthy, long millis) {}
      };

  /** Blocks until this call may go out. */
  void beforeCall() throws InterruptedException;

  /**
   * The call is over after {@code millis}: {@code healthy} false when it failed in a way that
   * counts against the model's health (the same failures that count for its circuit breaker).
   */
  void afterCall(boolean healthy, long millis);
}
