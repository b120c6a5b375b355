package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The packaged app (api/target/questionflow-exec.jar) as a real OS process, as an operator runs it:
 * with a caller, a staff and an admin key, so trial mode is off. {@link #get} and {@link #post}
 * present the key the path needs (as a chat back end, an agent or an operator would); {@link #send}
 * presents only the headers it is given.
 */
final class AppProcess implements AutoCloseable {

  static final String CALLER_KEY = "e2e-caller-key-0123456789-abcdef0123456789";
  static final String STAFF_KEY = "e2e-staff-key-0123456789-abcdef0123456789";
  static final String ADMIN_KEY = "e2e-admin-key-0123456789-abcdef0123456789";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Map<String, String> env;
  private final Path log;
  private final int port;
  private Process process;

  /**
   * The tests' JVM flags: a small heap, and C1 only (a test app lives for seconds; C2 would only
   * add compile time on 2 cores). Benchmarks pass the documented launch flags instead.
   */
  static final List<String> TEST_JVM = List.of("-Xmx512m", "-XX:TieredStopAtLevel=1");

  private final List<String> jvmArgs;

  /** How the app is launched other than {@code java -jar} (an image's entrypoint), or null. */
  private final Launch launch;

  /**
   * A command that runs the app, in a working directory (null: the test's): e.g. an image's
   * entrypoint, as the image's user.
   */
  record Launch(List<String> command, Path directory) {}

  private AppProcess(
      Map<String, String> env, Path log, int port, List<String> jvmArgs, Launch launch) {
    this.env = env;
    this.log = log;
    this.port = port;
    this.jvmArgs = jvmArgs;
    this.launch = launch;
  }

  /**
   * Starts the app against the dev server and Redis given to the tests, plus the given overrides.
   */
  static AppProcess start(String name, Map<String, String> overrides) throws Exception {
    return start(name, overrides, TEST_JVM);
  }

  /**
   * {@link #start(String, Map, List)} on another thread: two instances start at once (each start is
   * mostly its JVM's class loading and JIT).
   */
  static java.util.concurrent.CompletableFuture<AppProcess> starting(
      String name, Map<String, String> overrides, List<String> jvmArgs) {
    return java.util.concurrent.CompletableFuture.supplyAsync(
        () -> {
          try {
            return start(name, overrides, jvmArgs);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** The same, with these JVM flags. */
  static AppProcess start(String name, Map<String, String> overrides, List<String> jvmArgs)
      throws Exception {
    return start(name, overrides, jvmArgs, null);
  }

  /** The same environment, launched by {@code launch} instead of {@code java -jar}. */
  static AppProcess start(String name, Map<String, String> overrides, Launch launch)
      throws Exception {
    return start(name, overrides, List.of(), launch);
  }

  private static AppProcess start(
      String name, Map<String, String> overrides, List<String> jvmArgs, Launch launch)
      throws Exception {
    int port = freePort();
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", Infra.temporalAddress());
    env.put("REDIS_URL", Infra.redisUrl());
    env.put("PORT", String.valueOf(port));
    // the same stored indexes as bin/run and the api tests: built once, reused while pack and model
    // are unchanged
    env.put("FAQ_INDEX_DIR", Infra.repoRoot().resolve("data").resolve("faq-index").toString());
    env.put("LLM_BASE_URL", "");
    env.put("CALLER_API_KEYS", "e2e-backend:" + CALLER_KEY);
    env.put("STAFF_API_KEYS", "e2e-agent:" + STAFF_KEY);
    env.put("ADMIN_API_KEY", ADMIN_KEY);
    // shared by every instance of a test, as a deployment shares it: a question's ID must not
    // depend on the instance
    env.put("WORKFLOW_ID_SECRET", "e2e-workflow-id-secret-0123456789");
    env.put("PAYLOAD_KEYS", Infra.payloadKeys());
    env.put("TEMPORAL_UI_ORIGIN", "http://" + Infra.temporalUiAddress());
    env.putAll(overrides);
    Path log = Infra.workDir().resolve(name + ".log");
    Files.deleteIfExists(
        log); // a restart appends; a new start must not show an earlier build's lines
    AppProcess app = new AppProcess(env, log, port, jvmArgs, launch);
    app.launch();
    return app;
  }

  private void launch() throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(launch == null ? command(appJar()) : launch.command())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    if (launch != null && launch.directory() != null) {
      builder.directory(launch.directory().toFile());
    }
    builder.environment().putAll(env);
    process = builder.start();
    try {
      // an image started without its baked indexes builds them first; so does a jar on a fresh
      // data directory (the banking77 semantic index takes minutes on 2 cores)
      awaitHealthy(Duration.ofSeconds(launch == null ? 120 : 300), Duration.ofMinutes(10));
    } catch (RuntimeException | Error e) {
      process
          .destroyForcibly(); // the caller never gets an AppProcess to close: do not leave the JVM
      // running
      throw e;
    }
  }

  private static Path appJar() {
    Path jar = Path.of(System.getProperty("app.jar", "api/target/questionflow-exec.jar"));
    if (!Files.exists(jar)) {
      throw new IllegalStateException(
          "the app jar is missing: " + jar.toAbsolutePath() + " (run mvn package)");
    }
    return jar;
  }

  /**
   * The java launcher for apps and benchmark processes: {@code -Dapp.java=/path/to/bin/java} (a
   * benchmark may compare JDKs), else this JVM's.
   */
  static String javaBinary() {
    return System.getProperty(
        "app.java", Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private List<String> command(Path jar) {
    List<String> command = new java.util.ArrayList<>();
    command.add(javaBinary());
    command.addAll(jvmArgs);
    command.addAll(List.of("-jar", jar.toString()));
    return command;
  }

  /**
   * The value of a metric series on {@code /actuator/prometheus}, e.g. {@code
   * metric("cs_status_reads_total", "source=\"query\"")}: the first series of that name whose
   * labels contain {@code label} (0 when there is none).
   */
  double metric(String name, String label) throws Exception {
    return series(name, label).orElse(0);
  }

  /** As {@link #metric}, empty when there is no such series. */
  java.util.OptionalDouble series(String name, String label) throws Exception {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                "(?m)^"
                    + java.util.regex.Pattern.quote(name)
                    + "\\{[^}]*"
                    + java.util.regex.Pattern.quote(label)
                    + "[^}]*} ([0-9.eE+-]+)$")
            .matcher(get("/actuator/prometheus").body());
    return m.find()
        ? java.util.OptionalDouble.of(Double.parseDouble(m.group(1)))
        : java.util.OptionalDouble.empty();
  }

  /** The app's process ID (for CPU and JIT figures). */
  long pid() {
    return process.pid();
  }

  /**
   * Waits for health up to {@code timeout}, or up to {@code whileBuildingIndexes} while the log
   * says the FAQ indexes are being built (or awaited from another instance that builds them).
   */
  private void awaitHealthy(Duration timeout, Duration whileBuildingIndexes) {
    long started = System.nanoTime();
    await()
        .atMost(whileBuildingIndexes.compareTo(timeout) > 0 ? whileBuildingIndexes : timeout)
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptionsInstanceOf(IOException.class) // not listening yet (ConnectException)
        .untilAsserted(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException( // not ignored: ends the wait at once
                    "the app exited with "
                        + process.exitValue()
                        + "; its first error: "
                        + firstError()
                        + "\nlog tail:\n"
                        + logTail());
              }
              if (Duration.ofNanos(System.nanoTime() - started).compareTo(timeout) > 0
                  && !buildingIndexes()) {
                throw new IllegalStateException( // not ignored: ends the wait at once
                    "not healthy within " + timeout + "; log tail:\n" + logTail());
              }
              assertThat(get("/actuator/health").statusCode())
                  .as("health; log tail:%n%s", logTail())
                  .isEqualTo(200);
            });
  }

  /**
   * The log's first ERROR line (cut to 1,000 characters), named before the tail: a CI report that
   * shows only the start of a failure's message still shows why the app stopped.
   */
  String firstError() throws IOException {
    return Files.readAllLines(log).stream()
        .filter(line -> line.contains("\"level\":\"ERROR\"") || line.contains(" ERROR "))
        .findFirst()
        .map(line -> line.length() > 1000 ? line.substring(0, 1000) + "…" : line)
        .orElse("(none logged)");
  }

  /** The log names an FAQ index build (StoredIndexes), this process's or one it waits for. */
  private boolean buildingIndexes() throws IOException {
    return Files.readAllLines(log).stream()
        .anyMatch(
            line ->
                line.contains("Building FAQ index")
                    || line.contains("Building semantic FAQ index")
                    || line.contains("Waiting for another process that builds"));
  }

  String logTail() throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  Path log() {
    return log;
  }

  int port() {
    return port;
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  /**
   * The {@code Authorization} value for a path, from this app's configured keys: questions take the
   * (first) caller key, tickets the staff key, the admin API and the actuator (health details too)
   * the admin key; null when that key is not configured.
   */
  String credentialsFor(String path) {
    String key;
    if (path.startsWith("/api/v1/questions")) {
      key = firstKey("CALLER_API_KEYS");
    } else if (path.startsWith("/api/v1/tickets")) {
      key = firstKey("STAFF_API_KEYS");
    } else if (path.startsWith("/api/v1/admin") || path.startsWith("/actuator")) {
      key = env.getOrDefault("ADMIN_API_KEY", "");
    } else {
      key = "";
    }
    return key.isBlank() ? null : "Bearer " + key;
  }

  /** The key of the first {@code name:key[:VIP]} entry of a key list variable, or "" if none. */
  private String firstKey(String variable) {
    String first = env.getOrDefault(variable, "").split(",")[0].trim();
    return first.isEmpty() ? "" : first.split(":")[1];
  }

  private HttpRequest.Builder withCredentials(String path) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10));
    String credentials = credentialsFor(path);
    return credentials == null ? request : request.header("Authorization", credentials);
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(withCredentials(path).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
    return HTTP.send(
        withCredentials(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Any request, with headers as name, value pairs (body null: none; a body is JSON unless a
   * Content-Type is given).
   */
  HttpResponse<String> send(String method, String path, String body, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.setHeader(headers[i], headers[i + 1]); // replaces the JSON Content-Type above
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** POSTs a question and returns the 202 body. */
  JsonNode ask(String sessionId, String clientMsgId, String text) throws Exception {
    return ask(credentialsFor("/api/v1/questions"), sessionId, clientMsgId, text);
  }

  /** The same, as the holder of {@code authorization} (another caller's key). */
  JsonNode ask(String authorization, String sessionId, String clientMsgId, String text)
      throws Exception {
    String body =
        JSON.writeValueAsString(
            Map.of(
                "sessionId",
                sessionId,
                "userId",
                "user-" + sessionId,
                "clientMsgId",
                clientMsgId,
                "text",
                text));
    HttpResponse<String> response =
        authorization == null // trial mode: no key to present
            ? send("POST", "/api/v1/questions", body)
            : send("POST", "/api/v1/questions", body, "Authorization", authorization);
    if (response.statusCode() != 202) {
      throw new AssertionError("POST answered " + response.statusCode() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }

  JsonNode status(String workflowId) throws Exception {
    return status(workflowId, credentialsFor("/api/v1/questions"));
  }

  /**
   * The status as the holder of these credentials sees it (staff see every question; callers their
   * own).
   */
  JsonNode status(String workflowId, String authorization) throws Exception {
    HttpResponse<String> response =
        authorization == null
            ? send("GET", "/api/v1/questions/" + workflowId, null)
            : send("GET", "/api/v1/questions/" + workflowId, null, "Authorization", authorization);
    if (response.statusCode() != 200) {
      throw new AssertionError(
          "GET status answered " + response.statusCode() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }

  /** Polls the status URL until the stage is reached (or fails with the last status seen). */
  JsonNode awaitStage(String workflowId, String stage, Duration timeout) {
    AtomicReference<JsonNode> last = new AtomicReference<>();
    await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              last.set(status(workflowId));
              assertThat(last.get().path("stage").asText())
                  .as("status of %s: %s", workflowId, last.get())
                  .isEqualTo(stage);
            });
    return last.get();
  }

  /** The crash the SPEC guards against: no shutdown hooks, no graceful drain. */
  /** One Server-Sent Event: its name and its data line. */
  record Event(String name, String data) {}

  /**
   * A question's event stream (GET .../events) read until the server closes it: its events in
   * order.
   */
  List<Event> events(String workflowId, Duration timeout) throws Exception {
    HttpResponse<java.util.stream.Stream<String>> stream =
        java.net.http.HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(uri("/api/v1/questions/" + workflowId + "/events"))
                    .timeout(timeout)
                    .header("Accept", "text/event-stream")
                    .header("Authorization", credentialsFor("/api/v1/questions"))
                    .build(),
                HttpResponse.BodyHandlers.ofLines());
    assertThat(stream.statusCode()).isEqualTo(200);
    List<Event> events = new java.util.ArrayList<>();
    String name = null;
    for (String line : (Iterable<String>) stream.body()::iterator) {
      if (line.startsWith("event:")) {
        name = line.substring(6).strip();
      } else if (line.startsWith("data:")) {
        events.add(new Event(name, line.substring(5)));
      }
    }
    return events;
  }

  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /**
   * SIGTERM, as Kubernetes stops a pod; waits for the process to exit (at most {@code atMost}) and
   * returns how long it took, or null if it was still running (then it is killed).
   */
  Duration terminate(Duration atMost) throws InterruptedException {
    long started = System.nanoTime();
    process.destroy();
    if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      return null;
    }
    return Duration.ofNanos(System.nanoTime() - started);
  }

  /** Starts the same app again (same port, same environment). */
  void restart() throws Exception {
    launch();
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  /** A port nothing listens on now (for an app, a fake, a server the test starts). */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
