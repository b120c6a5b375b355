package dev.questionflow.e2e;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Main classes of this test class path in JVMs of their own, for the benchmarks: what they measure
 * must not share a CPU scheduler queue, a heap or a GC pause with the test JVM.
 */
final class JavaProcesses {

  private JavaProcesses() {}

  /**
   * {@code mainClass} of this test class path in a JVM of its own (output in {@code <name>.log} of
   * the work directory, {@code PAYLOAD_KEYS} as the apps get it), once it printed {@code ready}.
   */
  static Process start(
      String name, String ready, List<String> jvm, String mainClass, String... args)
      throws IOException {
    Path log = Infra.workDir().resolve(name + ".log");
    List<String> command = new ArrayList<>();
    command.add(AppProcess.javaBinary());
    command.addAll(jvm);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("PAYLOAD_KEYS", Infra.payloadKeys());
    Process process = builder.start();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited: " + Files.readString(log));
              }
              return Files.readString(log).contains(ready);
            });
    return process;
  }

  /**
   * {@link FakeModelServer} as a process of its own (its CPU is not the app's or the test JVM's),
   * started with its {@code main} flags; its calls are read over HTTP ({@link #calls()}).
   */
  static final class FakeModel implements AutoCloseable {

    /**
     * One call the fake received, on the wall clock of this machine (shared by every process).
     *
     * @param status the HTTP status it answered (429 over its quota)
     * @param delayMillis how long it waited before answering (its latency)
     */
    record ModelCall(
        long sequence, long epochMicros, long delayMillis, int status, String userMessage) {
      long epochMillis() {
        return epochMicros / 1000;
      }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final Process process;
    private final String baseUrl;

    private FakeModel(Process process, String baseUrl) {
      this.process = process;
      this.baseUrl = baseUrl;
    }

    /** A fake model named {@code name} (its log is {@code <name>.log}) with these main flags. */
    static FakeModel start(String name, String... flags) throws Exception {
      int port = AppProcess.freePort();
      List<String> args = new ArrayList<>(List.of("--port", String.valueOf(port)));
      args.addAll(List.of(flags));
      String ready = "LLM_BASE_URL=";
      Process process =
          JavaProcesses.start(
              name, ready, List.of(), FakeModelServer.class.getName(), args.toArray(String[]::new));
      String printed = Files.readString(Infra.workDir().resolve(name + ".log"));
      int at = printed.indexOf(ready) + ready.length();
      return new FakeModel(process, printed.substring(at, printed.indexOf('\n', at)).trim());
    }

    /** The value for LLM_BASE_URL. */
    String baseUrl() {
      return baseUrl;
    }

    /** Every call received so far, in arrival order. */
    List<ModelCall> calls() throws IOException, InterruptedException {
      String root = baseUrl.substring(0, baseUrl.length() - "/v1".length());
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(root + FakeModelServer.CALL_LOG_PATH))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("call log: " + response.statusCode());
      }
      List<ModelCall> calls = new ArrayList<>();
      for (JsonNode c : JSON.readTree(response.body())) {
        calls.add(
            new ModelCall(
                c.path("sequence").asLong(),
                c.path("epochMicros").asLong(),
                c.path("delayMillis").asLong(),
                c.path("status").asInt(),
                c.path("userMessage").isNull() ? null : c.path("userMessage").asText()));
      }
      return calls;
    }

    long pid() {
      return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
