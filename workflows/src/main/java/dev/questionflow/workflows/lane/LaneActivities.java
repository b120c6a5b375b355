package dev.questionflow.workflows.lane;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The shared ledger of a model lane's queue (Redis across instances): questions waiting for the
 * lane's task queue, in the order the Temporal server dispatches them (priority, then arrival).
 * {@code enterLane} runs as a regular activity scheduled together with the lane call (so it reaches
 * the ledger in the server's order), the refreshes as local activities (one marker event each): a
 * waiting question costs O(1) history events per refresh interval.
 */
@ActivityInterface
public interface LaneActivities {

  /**
   * Records the question as waiting for the lane and returns its position and ETA at that moment.
   */
  @ActivityMethod
  LaneSnapshot enterLane(LaneEntry entry);

  /**
   * The question's current position (or {@link LaneSnapshot#position()} -1 once its model call has
   * started).
   */
  @ActivityMethod
  LaneSnapshot laneSnapshot(LaneEntry entry);

  /**
   * Where the question would stand if it joined the lane now, without joining: {@link
   * LaneSnapshot#position()} is how many of equal or higher priority wait, {@link
   * LaneSnapshot#ratePerSecond()} the rate the lane serves them at (its rate, or less when its
   * calls in flight are at their limit), so {@link LaneSnapshot#waitSeconds()} is the projected
   * wait before the call would start. Read-only, so it can come before the call is scheduled
   * without changing the order in which the question then joins.
   */
  @ActivityMethod
  LaneSnapshot admission(LaneEntry entry);

  /**
   * Where a question that has an answer below the model joins the lane, or that it does not (its
   * projected wait does not fit the patience it has left): its own priority key for a short front
   * line, or the standing line ({@link Priorities#STANDING_KEY}) behind it when the lane's rate
   * left over by the front lines serves it in time. It writes one thing: a question placed in a
   * front line takes one of that line's tickets (so that questions placed at the same moment cannot
   * overfill it); a retried attempt may take a second one, which costs at most one early refusal.
   *
   * @param waitedMillis how long ago the question was asked: one that waited longer than a front
   *     line's wait already (a burst's backlog of questions not yet started) does not take the
   *     front line from the questions that come after it
   */
  @ActivityMethod
  LanePlace place(LaneEntry entry, long patienceLeftMillis, long waitedMillis);

  /**
   * The question left the lane without a call (its deadline, the budget, a breaker): its entry is
   * removed at once rather than when it grows stale.
   */
  @ActivityMethod
  void leaveLane(LaneEntry entry);
}
