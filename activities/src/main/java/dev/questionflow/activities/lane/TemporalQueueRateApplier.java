package dev.questionflow.activities.lane;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.RateLimit;
import io.temporal.api.workflowservice.v1.UpdateTaskQueueConfigRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets the activity task queue's rate limit on the Temporal server ({@code UpdateTaskQueueConfig},
 * the same as {@code temporal task-queue config set --task-queue Q --task-queue-type activity
 * --queue-rps-limit R}). It overrides the workers' {@code maxTaskQueueActivitiesPerSecond} and
 * holds across all workers and instances.
 */
public final class TemporalQueueRateApplier implements LaneRateController.RateApplier {

  private static final Logger log = LoggerFactory.getLogger(TemporalQueueRateApplier.class);

  private final WorkflowServiceStubs service;

  /**
   * The server has no UpdateTaskQueueConfig (the SDK's in-process test server of the embedded
   * mode).
   */
  private volatile boolean unsupported;

  private final String namespace;
  private final String identity;

  public TemporalQueueRateApplier(WorkflowServiceStubs service, String namespace, String identity) {
    this.service = service;
    this.namespace = namespace;
    this.identity = identity;
  }

  @Override
  public void apply(String taskQueue, double callsPerSecond, String reason) {
    if (unsupported) {
      return;
    }
    try {
      update(taskQueue, callsPerSecond, reason);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
      unsupported = true;
      log.warn(
          "this Temporal server cannot set task-queue rate limits (UpdateTaskQueueConfig is unimplemented: the"
              + " embedded test server?); adaptive lane rates apply through the lane throttle only");
    }
  }

  private void update(String taskQueue, double callsPerSecond, String reason) {
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
                        .setRateLimit(
                            RateLimit.newBuilder().setRequestsPerSecond((float) callsPerSecond))
                        .setReason(reason.length() > 200 ? reason.substring(0, 200) : reason))
                .build());
  }
}
