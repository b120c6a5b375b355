package dev.questionflow.activities.lane;

/**
 * What rate each side of a lane gets, in one place. A lane's configured rate ({@code
 * cs.lanes.<model>.rate}, or the adaptive controller's current one) is the model's quota in calls
 * per second:
 *
 * <ul>
 *   <li>the {@link LaneThrottle} in front of the model spaces the calls at the quota itself (a
 *       little under it, {@code BucketLaneThrottle.SPACING_MARGIN}, with a hard per-second cap), so
 *       the provider never sees more;
 *   <li>the Temporal server's task-queue rate limit gets {@link #SERVER_HEADROOM} times the quota:
 *       its token bucket dispatches in bursts and its matcher adds latency, so at exactly the quota
 *       a backlog would be served below it; and a call given up in the server's queue at its
 *       question's deadline may still spend one of its tokens (temporalio/temporal#3145), which at
 *       1.2 x left the model at 84-88 % of its quota under 5x overload (1.5 x: 91 %, bin/bench
 *       peers, issue 27). The server's limit decides who goes next (priority) and holds most of the
 *       backlog; calls it hands out above the quota wait in the lane gate, most urgent first, and
 *       give up there at their deadline; the throttle keeps the quota.
 * </ul>
 */
public final class LaneRates {

  public static final double SERVER_HEADROOM = 1.5;

  private LaneRates() {}

  /** The task-queue rate limit for a lane whose quota is {@code callsPerSecond}. */
  public static double serverLimit(double callsPerSecond) {
    return callsPerSecond * SERVER_HEADROOM;
  }
}
