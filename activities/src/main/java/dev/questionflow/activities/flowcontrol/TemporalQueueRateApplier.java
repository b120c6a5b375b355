package dev.questionflow.activities.flowcontrol;

import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.RateLimit;
import io.temporal.api.workflowservice.v1.UpdateTaskQueueConfigRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;

/**
 * Sets the activity task queue's rate limit on the Temporal server ({@code UpdateTaskQueueConfig}, the same as
 * {@code temporal task-queue config set --task-queue Q --task-queue-type activity --queue-rps-limit R}). It
 * overrides the workers' {@code maxTaskQueueActivitiesPerSecond} and holds across all workers and instances.
 */
public final class TemporalQueueRateApplier implements LaneRateController.RateApplier {

  private final WorkflowServiceStubs service;
  private final String namespace;
  private final String identity;

  public TemporalQueueRateApplier(WorkflowServiceStubs service, String namespace, String identity) {
    this.service = service;
    this.namespace = namespace;
    this.identity = identity;
  }

  @Override
  public void apply(String taskQueue, double callsPerSecond, String reason) {
    service
        .blockingStub()
        .updateTaskQueueConfig(
            UpdateTaskQueueConfigRequest.newBuilder()
                .setNamespace(namespace)
                .setIdentity(identity)
                .setTaskQueue(taskQueue)
                .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)
                .setUpdateQueueRateLimit(
                    UpdateTaskQueueConfigRequest.RateLimitUpdate.newBuilder()
                        .setRateLimit(RateLimit.newBuilder().setRequestsPerSecond((float) callsPerSecond))
                        .setReason(reason.length() > 200 ? reason.substring(0, 200) : reason))
                .build());
  }
}
