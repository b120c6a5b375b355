package dev.questionflow.activities.generation;

import dev.questionflow.workflows.generation.ModelFailures;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;

/**
 * The time limit of the activity attempt that makes a model call: its start-to-close timeout ends
 * the attempt, and a call still running then is lost (its answer never reported) and asked again by
 * the retry. So a call starts only while enough of the attempt is left, and never outlives it.
 *
 * @param endsAtEpochMillis when the attempt's start-to-close ends it (0: no limit, not in an
 *     activity)
 * @param startToCloseMillis the attempt's start-to-close timeout
 */
record AttemptLimit(long endsAtEpochMillis, long startToCloseMillis) {

  /** A call is not started with less than this left of its attempt (or half a shorter attempt). */
  static final Duration SHORTEST_CALL = Duration.ofSeconds(10);

  /** A call ends this long before its attempt, so its outcome is reported in time. */
  private static final long MARGIN_MILLIS = 1000;

  static final AttemptLimit NONE = new AttemptLimit(0, 0);

  /**
   * The attempt running on this thread, taken when it starts to run (a few milliseconds after the
   * server started it); {@link #NONE} for a direct call.
   */
  static AttemptLimit current() {
    Duration limit;
    try {
      limit = Activity.getExecutionContext().getInfo().getStartToCloseTimeout();
    } catch (IllegalStateException e) {
      return NONE; // a direct call, not an activity
    }
    return limit == null || limit.isZero()
        ? NONE
        : new AttemptLimit(System.currentTimeMillis() + limit.toMillis(), limit.toMillis());
  }

  /** The last moment a call may start in this attempt (0: no limit). */
  long lastStartEpochMillis() {
    return endsAtEpochMillis <= 0
        ? 0
        : endsAtEpochMillis - Math.min(SHORTEST_CALL.toMillis(), startToCloseMillis / 2);
  }

  /** The chain budget of a call starting now, cut to what the attempt has left. */
  long callBudgetMillis(long chainBudgetMillis) {
    if (endsAtEpochMillis <= 0) {
      return chainBudgetMillis;
    }
    long left = Math.max(1, endsAtEpochMillis - System.currentTimeMillis() - MARGIN_MILLIS);
    return chainBudgetMillis > 0 ? Math.min(chainBudgetMillis, left) : left;
  }

  /** Whether a call's budget was cut by the attempt rather than by its chain budget. */
  boolean cutShort(long chainBudgetMillis, long callBudgetMillis) {
    return endsAtEpochMillis > 0
        && (chainBudgetMillis <= 0 || callBudgetMillis < chainBudgetMillis);
  }

  /**
   * The failure of a call abandoned at its budget: a timeout like the client's own when the attempt
   * cut the budget short, else over the chain budget; neither retried (the provider may still be
   * answering).
   */
  ApplicationFailure abandoned(String role, long chainBudgetMillis, long callBudgetMillis) {
    if (cutShort(chainBudgetMillis, callBudgetMillis)) {
      return ApplicationFailure.newNonRetryableFailure(
          "the "
              + role
              + " model did not answer within what its activity attempt had left ("
              + callBudgetMillis
              + " ms): abandoned",
          ModelFailures.TIMEOUT);
    }
    return ApplicationFailure.newNonRetryableFailure(
        "the "
            + role
            + " model did not answer within the chain budget ("
            + callBudgetMillis
            + " ms): abandoned",
        ModelFailures.OVER_BUDGET);
  }
}
