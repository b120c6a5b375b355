package dev.questionflow.api.temporal;

import io.temporal.common.VersioningBehavior;
import io.temporal.common.WorkerDeploymentVersion;
import io.temporal.worker.WorkerDeploymentOptions;
import io.temporal.worker.WorkerOptions;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Temporal's Worker Deployment versioning for the question worker ({@code TEMPORAL_BUILD_ID}): each
 * build of the app is a version of the deployment {@code TEMPORAL_DEPLOYMENT_NAME}; a question is
 * pinned to the build that started it, and new questions go to the version made current with {@code
 * temporal worker deployment set-current-version}. The model lanes stay unversioned: one line, one
 * priority order and one rate limit for every build running at once.
 *
 * @param deploymentName the deployment (one per app installation and task queue)
 * @param buildId this build's ID (the image tag, say); blank = versioning off
 */
@ConfigurationProperties("cs.versioning")
public record WorkerVersioning(String deploymentName, String buildId) {

  public WorkerVersioning {
    deploymentName = blankToNull(deploymentName);
    buildId = blankToNull(buildId);
    if (buildId != null && deploymentName == null) {
      throw new IllegalArgumentException(
          "TEMPORAL_BUILD_ID is set without TEMPORAL_DEPLOYMENT_NAME: name the worker deployment");
    }
  }

  public boolean on() {
    return buildId != null;
  }

  /** This build as a version of its deployment (null when versioning is off). */
  public WorkerDeploymentVersion version() {
    return on() ? new WorkerDeploymentVersion(deploymentName, buildId) : null;
  }

  /** The question worker's options with this build's deployment version, when versioning is on. */
  public WorkerOptions.Builder apply(WorkerOptions.Builder worker) {
    if (!on()) {
      return worker;
    }
    // pinned as a default, not by annotation: the SDK reports an annotation's behaviour also from
    // unversioned workers, which the server refuses (INVALID_ARGUMENT)
    return worker.setDeploymentOptions(
        WorkerDeploymentOptions.newBuilder()
            .setUseVersioning(true)
            .setVersion(version())
            .setDefaultVersioningBehavior(VersioningBehavior.PINNED)
            .build());
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }
}
