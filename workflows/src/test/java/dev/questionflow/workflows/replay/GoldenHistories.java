package dev.questionflow.workflows.replay;

import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden histories: one recorded history per path of the question workflow, committed under {@code
 * src/test/resources/golden} and replayed in every build ({@link GoldenHistoryReplayTest}). They
 * are re-recorded only on purpose, after a change that is meant to be incompatible and is guarded
 * by versioning: {@code mvn -pl workflows test -Dtest=QuestionWorkflowTest -Dgolden.record=true}.
 */
public final class GoldenHistories {

  public static final Path DIR = Path.of("src/test/resources/golden");

  private GoldenHistories() {}

  /**
   * Writes the finished workflow's history as {@code golden/<name>.json} when recording, else does
   * nothing.
   */
  public static void keep(WorkflowClient client, String workflowId, String name) {
    keep(client, workflowId, null, name);
  }

  /** The same for one run of the workflow (null: its latest), e.g. one it continued as new from. */
  public static void keep(WorkflowClient client, String workflowId, String runId, String name) {
    if (!Boolean.getBoolean("golden.record")) {
      return;
    }
    try {
      Files.createDirectories(DIR);
      Files.writeString(
          DIR.resolve(name + ".json"),
          (runId == null ? client.fetchHistory(workflowId) : client.fetchHistory(workflowId, runId))
                  .toJson(true)
              + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
