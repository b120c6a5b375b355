package dev.questionflow.workflows.lane;

/**
 * Where a question joins a lane's line ({@link LaneActivities#place}), or that it does not.
 *
 * @param priorityKey the Temporal priority key to join at; 0: none, its projected wait does not fit
 *     its patience
 * @param waitSeconds its projected wait before the call would start; negative: no turn in sight
 *     (the lane's whole rate goes to the questions ahead of it)
 */
public record LanePlace(int priorityKey, double waitSeconds) {

  public static LanePlace none(double waitSeconds) {
    return new LanePlace(0, waitSeconds);
  }

  public boolean joins() {
    return priorityKey > 0;
  }
}
