package dev.questionflow.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.workflows.codec.EncryptionCodec;
import dev.questionflow.workflows.codec.PayloadKeys;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The real services these tests need: the Temporal dev server and Redis, started by bin/test
 * (bin/dev-services). They are required, not optional: a missing service fails the tests instead of
 * skipping them.
 */
final class Infra {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path workDir;

  private Infra() {}

  static String temporalAddress() {
    return env("IT_TEMPORAL_ADDRESS", "127.0.0.1:7233");
  }

  /** The dev server's Web UI (bin/dev-services: port 8233 on the frontend's host). */
  static String temporalUiAddress() {
    String host = temporalAddress().replaceFirst(":\\d+$", "");
    return env("IT_TEMPORAL_UI_ADDRESS", host + ":8233");
  }

  static String redisUrl() {
    return env("IT_REDIS_URL", "redis://127.0.0.1:6379");
  }

  static String namespace() {
    return "default";
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }

  static Path repoRoot() {
    return Path.of(System.getProperty("repo.root", "..")).toAbsolutePath().normalize();
  }

  static synchronized Path workDir() throws IOException {
    if (workDir == null) {
      workDir = Files.createDirectories(Path.of("target", "e2e-work")).toAbsolutePath();
    }
    return workDir;
  }

  /**
   * A task queue of its own per test class, so app instances of other tests never take its work.
   */
  static String uniqueTaskQueue(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * The payload keys the apps under test get: bin/test's development key ({@code PAYLOAD_KEYS}), or
   * a fixed test key when the tests run without it.
   */
  static String payloadKeys() {
    String keys = System.getenv("PAYLOAD_KEYS");
    return keys == null || keys.isBlank()
        ? "e2e:ZTJlLXBheWxvYWQta2V5LTAxMjM0NTY3ODlhYmNkZWY="
        : keys;
  }

  /** A client that reads the apps' encrypted payloads (with {@link #payloadKeys()}). */
  static WorkflowClient temporalClient() {
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporalAddress()).build());
    return WorkflowClient.newInstance(
        stubs,
        WorkflowClientOptions.newBuilder()
            .setNamespace(namespace())
            .setDataConverter(EncryptionCodec.dataConverter(PayloadKeys.parse(payloadKeys())))
            .build());
  }

  /** The Temporal CLI as installed by bin/dev-services. */
  static String temporalCli() {
    Path installed =
        Path.of(System.getProperty("user.home"), ".local", "temporal", "bin", "temporal");
    return Files.isExecutable(installed) ? installed.toString() : "temporal";
  }

  /** Runs a Temporal CLI command against the dev server with JSON output and parses it. */
  static JsonNode temporalJson(String... args) throws Exception {
    String out = runCli(args);
    return out.isEmpty() ? JSON.createArrayNode() : JSON.readTree(out);
  }

  /**
   * `temporal workflow list --output json` prints JSON lines or an array depending on version; read
   * both.
   */
  static List<JsonNode> temporalJsonList(String... args) throws Exception {
    String out = runCli(args);
    List<JsonNode> rows = new ArrayList<>();
    if (out.isEmpty()) {
      return rows;
    }
    if (out.startsWith("[")) {
      JSON.readTree(out).forEach(rows::add);
      return rows;
    }
    try (var parser = JSON.getFactory().createParser(out)) {
      JSON.readValues(parser, JsonNode.class).forEachRemaining(rows::add);
    }
    return rows;
  }

  /** A Temporal CLI command against the dev server with JSON output, as printed. */
  static String runCli(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(temporalCli()));
    command.addAll(List.of(args));
    command.addAll(
        List.of("--address", temporalAddress(), "--namespace", namespace(), "--output", "json"));
    Process process = new ProcessBuilder(command).start();
    String out =
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new AssertionError(String.join(" ", command) + " failed: " + err + out);
    }
    return out;
  }

  /**
   * The history of a question's own run: a question handed over to a person continued as new into
   * the wait for a person (TicketReplyWorkflow), whose run is the latest under the workflow ID.
   */
  static WorkflowExecutionHistory questionRun(WorkflowClient temporal, String workflowId) {
    WorkflowExecutionHistory latest = temporal.fetchHistory(workflowId);
    String previous =
        latest
            .getEvents()
            .get(0)
            .getWorkflowExecutionStartedEventAttributes()
            .getContinuedExecutionRunId();
    return previous.isEmpty() ? latest : temporal.fetchHistory(workflowId, previous);
  }

  /** Closes each part that was created (null: its start failed or never ran), in order. */
  static void closeAll(AutoCloseable... parts) throws Exception {
    for (AutoCloseable part : parts) {
      if (part != null) {
        part.close();
      }
    }
  }
}
