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
        public void beforeCall(long deadlineEpochMillis) {}

        @Override
        public void afterCall(boolean healthy, long millis) {}

        @Override
        public void notCalled() {}
      };

  /**
   * Blocks until this call may go out.
   *
   * @param deadlineEpochMillis no call starts after this (0 = none)
   * @throws DeadlinePassed when the call could not go out by the deadline: it must not be made
   */
  void beforeCall(long deadlineEpochMillis) throws InterruptedException;

  /**
   * As {@link #beforeCall(long)}, and the call goes out no later than {@code lastStartEpochMillis}
   * (0 = no such limit): the activity attempt's own end, less the time a call needs. Past it the
   * call is not made ({@link AttemptEnding}) and the question keeps its place in the line: its next
   * attempt waits again.
   */
  default void beforeCall(long deadlineEpochMillis, long lastStartEpochMillis)
      throws InterruptedException {
    beforeCall(deadlineEpochMillis);
  }

  /**
   * The call is over after {@code millis}: {@code healthy} false when it failed in a way that
   * counts against the model's health (the same failures that count for its circuit breaker).
   */
  void afterCall(boolean healthy, long millis);

  /** The call will not be made (a breaker refused it): its question leaves the lane's line. */
  void notCalled();

  /** The call's queue deadline passed before it could go out (the CoDel rule). */
  final class DeadlinePassed extends RuntimeException {
    public DeadlinePassed(String message) {
      super(message, null, false, false);
    }
  }

  /** The attempt would end before a call made now could: it is not made in this attempt. */
  final class AttemptEnding extends RuntimeException {
    public AttemptEnding(String message) {
      super(message, null, false, false);
    }
  }
}
