package dev.questionflow.workflows.lane;

/**
 * @param lane the model lane's task queue (the ledger's key: deployments sharing a Redis stay
 *     apart)
 * @param priorityKey Temporal priority key (1 = served first), see {@link Priorities}
 */
public record LaneEntry(String lane, String workflowId, int priorityKey) {}
