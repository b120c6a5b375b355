package dev.questionflow.workflows.lane;

/**
 * @param position questions ahead of this one (0 = next); -1 when it is no longer waiting (its call
 *     started)
 * @param ratePerSecond the lane's current service rate (its rate limit, lowered while the model is
 *     unhealthy)
 * @param meanProcessingMillis mean duration of the lane's recent model calls
 * @param etaSeconds expected seconds until the answer: (position + 1) / rate + mean processing time
 * @param atEpochMillis when the snapshot was taken
 */
public record LaneSnapshot(
    long position,
    double ratePerSecond,
    long meanProcessingMillis,
    double etaSeconds,
    long atEpochMillis) {

  /**
   * At most this many ahead is reported as 0 ("you are next"): within the accuracy the position
   * promises (max(2, 10 %) of those actually served first), and it lets a customer see 0 before the
   * model call starts even though the last few positions pass within a fraction of a second.
   */
  public static final long NEAR_FRONT = 2;

  /** The position a caller is told for {@code position} questions ahead. */
  public static int shown(long position) {
    return (int) (position <= NEAR_FRONT ? 0 : position);
  }

  public boolean waiting() {
    return position >= 0;
  }

  /** The projected wait before this question's call starts: those ahead at the service rate. */
  public double waitSeconds() {
    return position <= 0 ? 0 : position / Math.max(0.01, ratePerSecond);
  }

  /**
   * The position projected to a later moment at the lane's rate, never below 0 (the caller's clock;
   * a query cannot add history events, so between snapshots the position is projected rather than
   * polled).
   */
  public long positionAt(long epochMillis) {
    if (position < 0) {
      return position;
    }
    double served = Math.max(0, epochMillis - atEpochMillis) / 1000.0 * ratePerSecond;
    return Math.max(0, position - (long) Math.floor(served));
  }

  public double etaAt(long epochMillis) {
    double elapsed = Math.max(0, epochMillis - atEpochMillis) / 1000.0;
    return Math.max(meanProcessingMillis / 1000.0, etaSeconds - elapsed);
  }
}
