package dev.questionflow.workflows.lane;

/**
 * @param lane the model lane's task queue (the ledger's key: deployments sharing a Redis stay
 *     apart)
 * @param workflowId who waits: the question's workflow ID, or its upgrade's ledger member ({@link
 *     Priorities#ledgerMember})
 * @param priorityKey Temporal priority key (1 = served first), see {@link Priorities}
 * @param deadlineEpochMillis the question's queue deadline: its call does not start after it, so an
 *     entry older than that is stale (0 = none, entries of questions from before deadlines)
 */
public record LaneEntry(String lane, String workflowId, int priorityKey, long deadlineEpochMillis) {

  public LaneEntry(String lane, String workflowId, int priorityKey) {
    this(lane, workflowId, priorityKey, 0);
  }
}
