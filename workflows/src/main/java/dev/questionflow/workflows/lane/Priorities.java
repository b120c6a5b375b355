package dev.questionflow.workflows.lane;

import io.temporal.common.Priority;

/**
 * Our 0-10 priority scale (VIP 9, complaint 8, default 5) on Temporal's priority keys (1 = highest;
 * the server's default range is 1-5 and 3 is the default key): 9-10 -> 1, 7-8 -> 2, 4-6 -> 3, 2-3
 * -> 4, 0-1 -> 5. Equal keys are served in arrival order.
 */
public final class Priorities {

  public static final int VIP = 9;
  public static final int COMPLAINT = 8;
  public static final int DEFAULT = 5;

  /**
   * The standing line: standard questions that found their front line (key 3) longer than a short
   * wait and wait for what the front lines leave of the lane's rate (with low-priority questions).
   * New questions go ahead of it, so a burst's backlog never delays the questions after it (the
   * adaptive LIFO of "Fail at Scale", on two keys).
   */
  public static final int STANDING_KEY = 4;

  /** The priority key of standard questions: its line is kept short. */
  public static final int FRONT_KEY = 3;

  /** A fuller answer after a quick one: the lowest, never ahead of a new question. */
  public static final int UPGRADE = 0;

  /**
   * Who waits in a lane's ledger for a call at {@code priorityKey}: the question itself, or for an
   * upgrade (the lowest key) its upgrade, kept apart so that a status read does not take the
   * upgrade's place in line for the question, which already has its answer.
   */
  public static String ledgerMember(String workflowId, int priorityKey) {
    return priorityKey == toTemporalKey(UPGRADE) ? workflowId + "/upgrade" : workflowId;
  }

  private Priorities() {}

  /** The SDK's {@code Priority} for a question of {@code priority} (its workflow or its steps). */
  public static Priority temporal(int priority) {
    return Priority.newBuilder().setPriorityKey(toTemporalKey(priority)).build();
  }

  public static int toTemporalKey(int priority) {
    int p = Math.max(0, Math.min(10, priority));
    if (p >= 9) {
      return 1;
    }
    if (p >= 7) {
      return 2;
    }
    if (p >= 4) {
      return 3;
    }
    return p >= 2 ? 4 : 5;
  }
}
