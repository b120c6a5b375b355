package dev.questionflow.activities.generation;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.concurrent.TimeUnit;

/**
 * A model's SPEC breaker and its outlier ejection (null: none), asked and told together: a call
 * needs both permissions, and its outcome counts in both. resilience4j has no composite breaker.
 */
record ModelHealth(CircuitBreaker breaker, CircuitBreaker ejection) {

  boolean tryAcquirePermission() {
    if (!breaker.tryAcquirePermission()) {
      return false;
    }
    if (ejection != null && !ejection.tryAcquirePermission()) {
      breaker.releasePermission();
      return false;
    }
    return true;
  }

  /** The call was not made, or says nothing about the model: neither a success nor a failure. */
  void releasePermission() {
    breaker.releasePermission();
    if (ejection != null) {
      ejection.releasePermission();
    }
  }

  void onError(long duration, TimeUnit unit, Throwable error) {
    breaker.onError(duration, unit, error);
    if (ejection != null) {
      ejection.onError(duration, unit, error);
    }
  }

  void onSuccess(long duration, TimeUnit unit) {
    breaker.onSuccess(duration, unit);
    if (ejection != null) {
      ejection.onSuccess(duration, unit);
    }
  }

  /** Why calls are refused: the breaker's state, or that the model is ejected. */
  String refusal() {
    CircuitBreaker.State state = breaker.getState();
    if (state != CircuitBreaker.State.CLOSED || ejection == null) {
      return "circuit breaker is " + state;
    }
    return "circuit breaker is CLOSED but the model is ejected after failures in a row ("
        + ejection.getState()
        + ")";
  }
}
