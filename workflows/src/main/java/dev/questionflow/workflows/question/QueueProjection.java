package dev.questionflow.workflows.question;

import dev.questionflow.workflows.lane.LaneSnapshot;
import java.time.Duration;

/**
 * A waiting question's position and ETA between the lane ledger's snapshots: pure arithmetic on
 * snapshots and the clock, so the status query can project without adding history events and the
 * rules are tested without Temporal.
 */
final class QueueProjection {

  /**
   * Projects a little slower than the lane serves: the next snapshot then usually finds the
   * question further ahead than projected and is taken as it is, instead of being clamped to a
   * projection that ran ahead of reality (which would carry the error into every later position).
   */
  static final double FACTOR = 0.9;

  private QueueProjection() {}

  /** The projection from the first snapshot, at the lane's rate. */
  static LaneSnapshot first(LaneSnapshot snapshot) {
    return conservative(snapshot, snapshot.ratePerSecond());
  }

  /**
   * The projection after a refresh: at the rate this question actually moved since the previous
   * snapshot (bounded by the lane's rate limit), so the position between refreshes tracks the real
   * service rate; and never above the position projected so far (a VIP arriving may overtake, but
   * the customer's number only goes down).
   */
  static LaneSnapshot next(LaneSnapshot previous, LaneSnapshot shown, LaneSnapshot fresh) {
    double rate = fresh.ratePerSecond();
    double seconds = (fresh.atEpochMillis() - previous.atEpochMillis()) / 1000.0;
    if (seconds > 0) {
      double moved = (previous.position() - fresh.position()) / seconds;
      rate = Math.min(fresh.ratePerSecond(), Math.max(0.1 * fresh.ratePerSecond(), moved));
    }
    long position = Math.min(fresh.position(), shown.positionAt(fresh.atEpochMillis()));
    double eta = (position + 1) / rate + fresh.meanProcessingMillis() / 1000.0;
    return conservative(
        new LaneSnapshot(position, rate, fresh.meanProcessingMillis(), eta, fresh.atEpochMillis()),
        rate);
  }

  /**
   * Waiting behind others for the lane does not count against the chain budget: twice the expected
   * wait, at most {@code maxQueueWaitSeconds} (the SPEC's 60 s, also the lane activity's
   * schedule-to-start timeout).
   */
  static Duration allowance(LaneSnapshot shown, long maxQueueWaitSeconds) {
    if (shown == null || shown.position() <= 0) {
      return Duration.ZERO;
    }
    return Duration.ofSeconds(
        Math.min(maxQueueWaitSeconds, (long) Math.ceil(2 * shown.etaSeconds())));
  }

  /**
   * Whether a question the ledger put in line is shown as waiting: when others are ahead of it, or
   * when even the first in line waits a second or more for the lane's next call (a slow lane). The
   * first in line of a lane that serves faster starts within a fraction of a second: showing it as
   * waiting would cost two stage changes (search-attribute upserts) for nothing a caller could see.
   */
  static boolean worthShowing(LaneSnapshot entered) {
    return entered != null
        && entered.waiting()
        && (entered.position() > 0 || entered.ratePerSecond() <= 1.0);
  }

  /**
   * The next refresh: the usual interval, or earlier when about {@link LaneSnapshot#NEAR_FRONT} are
   * left before it ends.
   */
  static Duration untilNextRefresh(LaneSnapshot shown, Duration refresh) {
    double toFront =
        (shown.position() - LaneSnapshot.NEAR_FRONT) / Math.max(0.01, shown.ratePerSecond());
    return toFront > 1 && toFront < refresh.getSeconds()
        ? Duration.ofMillis((long) (toFront * 1000))
        : refresh;
  }

  private static LaneSnapshot conservative(LaneSnapshot s, double rate) {
    return new LaneSnapshot(
        s.position(), rate * FACTOR, s.meanProcessingMillis(), s.etaSeconds(), s.atEpochMillis());
  }
}
