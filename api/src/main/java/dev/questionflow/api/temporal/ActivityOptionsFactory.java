package dev.questionflow.api.temporal;

import dev.questionflow.api.config.CsProperties;
import dev.questionflow.api.config.CsProperties.StageOptions;
import dev.questionflow.workflows.ActivityStages;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Turns the per-stage options of application.yml into per-activity-type ActivityOptions. */
public final class ActivityOptionsFactory {

  private ActivityOptionsFactory() {}

  /** The question workflow's activity options. */
  public static Map<String, ActivityOptions> byActivityType(Map<String, StageOptions> stages) {
    return byActivityType(stages, ActivityStages.ACTIVITY_TYPES);
  }

  /** Options for the given stage -> activity types map (each workflow type has its own). */
  public static Map<String, ActivityOptions> byActivityType(
      Map<String, StageOptions> stages, Map<String, List<String>> activityTypes) {
    Map<String, ActivityOptions> byType = new HashMap<>();
    activityTypes.forEach(
        (stage, types) -> {
          StageOptions options = stages.get(stage);
          if (options == null) {
            throw new IllegalStateException(
                "cs.activities." + stage + " is missing in application.yml");
          }
          types.forEach(type -> byType.put(type, toActivityOptions(options)));
        });
    return byType;
  }

  /** Local activity options per type (start-to-close and retry of the stage). */
  public static Map<String, LocalActivityOptions> localByActivityType(
      Map<String, StageOptions> stages, Map<String, List<String>> activityTypes) {
    Map<String, LocalActivityOptions> byType = new HashMap<>();
    byActivityType(stages, activityTypes)
        .forEach(
            (type, regular) -> {
              LocalActivityOptions.Builder local =
                  LocalActivityOptions.newBuilder()
                      .setStartToCloseTimeout(regular.getStartToCloseTimeout());
              if (regular.getRetryOptions() != null) {
                local.setRetryOptions(regular.getRetryOptions());
              }
              if (regular.getScheduleToCloseTimeout() != null) {
                local.setScheduleToCloseTimeout(regular.getScheduleToCloseTimeout());
              }
              byType.put(type, local.build());
            });
    return byType;
  }

  static ActivityOptions toActivityOptions(StageOptions stage) {
    ActivityOptions.Builder builder =
        ActivityOptions.newBuilder().setStartToCloseTimeout(stage.startToCloseTimeout());
    if (stage.scheduleToCloseTimeout() != null) {
      builder.setScheduleToCloseTimeout(stage.scheduleToCloseTimeout());
    }
    if (stage.scheduleToStartTimeout() != null) {
      builder.setScheduleToStartTimeout(stage.scheduleToStartTimeout());
    }
    CsProperties.Retry retry = stage.retry();
    if (retry != null) {
      RetryOptions.Builder policy =
          RetryOptions.newBuilder()
              .setMaximumAttempts(retry.maxAttempts())
              .setInitialInterval(retry.initialInterval())
              .setBackoffCoefficient(retry.backoffCoefficient())
              .setMaximumInterval(retry.maxInterval());
      List<String> nonRetryable = retry.nonRetryableErrorTypes();
      if (nonRetryable != null && !nonRetryable.isEmpty()) {
        policy.setDoNotRetry(nonRetryable.toArray(String[]::new));
      }
      builder.setRetryOptions(policy.build());
    }
    return builder.build();
  }
}
