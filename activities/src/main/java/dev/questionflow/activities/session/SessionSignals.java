package dev.questionflow.activities.session;

/**
 * Tells a waiting question that the one ahead of it has finished (Temporal signal in production).
 */
@FunctionalInterface
public interface SessionSignals {

  /**
   * Signals {@code sessionTurnReady(finishedWorkflowId)} to {@code nextWorkflowId}. A workflow that
   * no longer exists or has already completed is not an error.
   */
  void turnReady(String nextWorkflowId, String finishedWorkflowId);
}
