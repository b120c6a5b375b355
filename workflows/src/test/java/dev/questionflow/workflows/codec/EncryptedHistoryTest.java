package dev.questionflow.workflows.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.workflows.replay.GoldenHistories;
import dev.questionflow.workflows.replay.HistoryReplay;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DataConverter;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the server stores under encryption: no customer text in inputs, results or failures; the
 * history replays after a key rotation; histories recorded before encryption still replay through
 * the codec.
 */
class EncryptedHistoryTest {

  private static final String MARKER = "MARKER-7f3a91";
  private static final String K1 = PayloadKeys.generateEntry("k1");
  private static final String K2 = PayloadKeys.generateEntry("k2");

  @WorkflowInterface
  public interface Echo {
    @WorkflowMethod
    String echo(String text);
  }

  @ActivityInterface
  public interface Shout {
    @ActivityMethod
    String shout(String text);
  }

  public static class EchoImpl implements Echo {
    private final Shout shout =
        Workflow.newActivityStub(
            Shout.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofSeconds(5))
                .setRetryOptions(
                    RetryOptions.newBuilder()
                        .setInitialInterval(Duration.ofMillis(10))
                        .setMaximumAttempts(3)
                        .build())
                .build());

    @Override
    public String echo(String text) {
      try {
        return shout.shout(text) + "!";
      } catch (io.temporal.failure.ActivityFailure e) {
        return "failed";
      }
    }
  }

  /**
   * Fails once with the customer text in its message, as an upstream error body would; for good
   * when the text starts with "fail:".
   */
  static class ShoutImpl implements Shout {
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public String shout(String text) {
      if (text.startsWith("fail:")) {
        throw ApplicationFailure.newNonRetryableFailure("upstream rejected: " + text, "Upstream");
      }
      if (calls.incrementAndGet() == 1) {
        throw ApplicationFailure.newFailure("upstream rejected: " + text, "Upstream");
      }
      return text.toUpperCase(java.util.Locale.ROOT);
    }
  }

  @Test
  void theStoredHistoryHoldsNoCustomerTextAndReplaysAfterRotation() {
    DataConverter underK1 = EncryptionCodec.dataConverter(PayloadKeys.parse(K1));
    WorkflowExecutionHistory history = run(underK1, "question " + MARKER);

    String json = history.toJson(false);
    assertThat(json).doesNotContain(MARKER).doesNotContain(MARKER.toUpperCase());
    assertThat(json).contains(base64("binary/encrypted"));
    assertThat(json).contains(base64("k1")); // the key ID in each payload's metadata

    // tools without the app's keys say which key they need instead of failing the replay
    assertThat(EncryptionCodec.missingKey(history.getEvents(), null)).isEqualTo("k1");
    assertThat(EncryptionCodec.missingKey(history.getEvents(), PayloadKeys.parse(K2)))
        .isEqualTo("k1");
    assertThat(EncryptionCodec.missingKey(history.getEvents(), PayloadKeys.parse(K2 + "," + K1)))
        .isNull();

    DataConverter rotated = EncryptionCodec.dataConverter(PayloadKeys.parse(K2 + "," + K1));
    assertThat(replay(history, rotated).outcome()).isEqualTo(HistoryReplay.Outcome.OK);
    HistoryReplay.Result withoutTheOldKey =
        replay(history, EncryptionCodec.dataConverter(PayloadKeys.parse(K2)));
    assertThat(withoutTheOldKey.outcome()).isEqualTo(HistoryReplay.Outcome.FAILED);
  }

  @Test
  void failureMessagesAreEncryptedButReadableWithTheKey() {
    DataConverter converter = EncryptionCodec.dataConverter(PayloadKeys.parse(K1));
    WorkflowExecutionHistory history = run(converter, "fail: " + MARKER);

    var failure =
        history.getEvents().stream()
            .filter(e -> e.hasActivityTaskFailedEventAttributes())
            .findFirst()
            .orElseThrow()
            .getActivityTaskFailedEventAttributes()
            .getFailure();
    assertThat(failure.toString()).doesNotContain(MARKER);
    assertThat(failure.getMessage()).isEqualTo("Encoded failure");
    assertThat(converter.failureToException(failure).getMessage()).contains(MARKER);
  }

  @Test
  void goldenHistoriesRecordedBeforeEncryptionStillReplayThroughTheCodec() throws IOException {
    DataConverter converter = EncryptionCodec.dataConverter(PayloadKeys.parse(K1));
    List<Path> goldens;
    try (Stream<Path> files = Files.list(GoldenHistories.DIR)) {
      goldens = files.sorted().toList();
    }
    assertThat(goldens).hasSizeGreaterThan(5);
    for (Path file : goldens) {
      String name = file.getFileName().toString();
      // the file's name is the workflow ID, as bin/replay --file takes it (a callback's child ID
      // derives from it)
      WorkflowExecutionHistory golden =
          WorkflowExecutionHistory.fromJson(
              Files.readString(file), name.replaceFirst("\\.json$", ""));
      HistoryReplay.Result result =
          HistoryReplay.replay(golden, HistoryReplay.CURRENT_WORKFLOWS, converter);
      assertThat(result.problem()).as(name).isNull();
    }
  }

  private static HistoryReplay.Result replay(
      WorkflowExecutionHistory history, DataConverter converter) {
    return HistoryReplay.replay(history, List.of(EchoImpl.class), converter);
  }

  private static WorkflowExecutionHistory run(DataConverter converter, String text) {
    TestEnvironmentOptions options =
        TestEnvironmentOptions.newBuilder()
            .setWorkflowClientOptions(
                WorkflowClientOptions.newBuilder().setDataConverter(converter).build())
            .build();
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(options)) {
      var worker = env.newWorker("echo");
      worker.registerWorkflowImplementationTypes(EchoImpl.class);
      worker.registerActivitiesImplementations(new ShoutImpl());
      env.start();
      WorkflowClient client = env.getWorkflowClient();
      Echo echo =
          client.newWorkflowStub(
              Echo.class,
              WorkflowOptions.newBuilder().setTaskQueue("echo").setWorkflowId("wf-echo").build());
      String expected =
          text.startsWith("fail:") ? "failed" : text.toUpperCase(java.util.Locale.ROOT) + "!";
      assertThat(echo.echo(text)).isEqualTo(expected);
      return client.fetchHistory("wf-echo");
    }
  }

  private static String base64(String s) {
    return java.util.Base64.getEncoder()
        .encodeToString(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
