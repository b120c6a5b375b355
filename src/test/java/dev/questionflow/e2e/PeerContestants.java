package dev.questionflow.e2e;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.e2e.JavaProcesses.FakeModel;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The three ways to put a model in front of customers that {@link PeersBenchmarkIT} compares, each
 * started against the same fake models and asked the same questions the way its users' chat back
 * ends ask.
 */
final class PeerContestants {

  private PeerContestants() {}

  private static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .version(HttpClient.Version.HTTP_1_1)
          .build();

  /** How a question ended for the customer. */
  enum Level {
    /** a model's answer (primary or backup) */
    FULL,
    /** a standard FAQ or keyword answer */
    FALLBACK,
    /** handed to a person (ours): not an answer yet, not an error either */
    TICKET,
    /** an error the customer saw (or no answer at all) */
    ERROR
  }

  /** What the chat back end learned about one question: when and at which level. */
  record Result(Level level, long doneMicros, int attempts, String detail) {}

  /** A question as offered: its number in the scenario and its text (with the tag). */
  record Question(int n, String text, long offeredMicros) {}

  interface Contestant extends AutoCloseable {
    String name();

    /**
     * Asks one question; the future completes when the back end knows the outcome (for ours: when
     * the question is accepted, see {@link #collect}). {@code retrying}: the back end retries a
     * failed request, or one still without an answer after 10 s, once.
     */
    CompletableFuture<Result> ask(Question question, boolean retrying);

    /**
     * The outcomes of questions whose answers come later (ours: from Temporal visibility), by
     * question number, once {@code deadlineMicros} passed or all are settled. Others: empty.
     */
    default Map<Integer, Result> collect(long deadlineMicros) throws Exception {
      return Map.of();
    }

    /**
     * Waits until nothing of the last scenario is left in the contestant (ours: no question in
     * progress, an empty lane), so the next scenario starts from the same quiet state.
     */
    default void settle() throws Exception {}

    /** The questions waiting in the contestant's own queue now, or -1 if it has none to read. */
    default long queueDepth() {
      return -1;
    }

    /** The processes that are the contestant (their memory and threads are reported). */
    List<Long> pids();
  }

  static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Polls {@code done} until it holds or {@code atMost} passed; a wait with a cap, not a check:
   * what is still unsettled then is counted as such by the caller.
   */
  static void waitAtMost(Duration atMost, Duration every, Callable<Boolean> done) {
    try {
      await()
          .atMost(atMost.isNegative() || atMost.isZero() ? Duration.ofMillis(1) : atMost)
          .pollInterval(every)
          .until(done);
    } catch (ConditionTimeoutException e) {
      // the cap: go on with what there is
    }
  }

  /** A request that failed or (retrying) took longer than this is asked again, once. */
  static final Duration SLOW = Duration.ofSeconds(10);

  /** The longest a customer waits. */
  static final Duration PATIENCE = Duration.ofSeconds(60);

  /**
   * A synchronous request with the chat back end's rules: {@code retryErrors}: a failure is sent
   * again, once, within the customer's {@link #PATIENCE}; {@code impatient}: so is a request still
   * without an answer after {@link #SLOW} (the first attempt is abandoned, not cancelled on the
   * server: it keeps working, as it would).
   */
  static CompletableFuture<Result> synchronous(
      java.util.function.Supplier<HttpRequest.Builder> request,
      java.util.function.Function<HttpResponse<String>, Result> read,
      Question question,
      boolean retryErrors,
      boolean impatient) {
    AtomicInteger attempts = new AtomicInteger();
    java.util.function.Function<Duration, CompletableFuture<Result>> attempt =
        timeout -> {
          attempts.incrementAndGet();
          return HTTP.sendAsync(
                  request.get().timeout(timeout).build(), HttpResponse.BodyHandlers.ofString())
              .thenApply(read)
              .exceptionally(
                  e ->
                      new Result(
                          Level.ERROR,
                          BenchFigures.nowMicros(),
                          0,
                          rootCause(e).getClass().getSimpleName()));
        };
    return attempt
        .apply(impatient ? SLOW : PATIENCE)
        .thenCompose(
            first -> {
              long left =
                  question.offeredMicros() + PATIENCE.toNanos() / 1000 - BenchFigures.nowMicros();
              if (first.level() != Level.ERROR || !(retryErrors || impatient) || left <= 0) {
                return CompletableFuture.completedFuture(first);
              }
              return attempt.apply(Duration.ofNanos(left * 1000));
            })
        .thenApply(r -> withAttempts(r, attempts.get()));
  }

  private static Result withAttempts(Result result, int attempts) {
    return new Result(result.level(), result.doneMicros(), attempts, result.detail());
  }

  private static Throwable rootCause(Throwable e) {
    while (e.getCause() != null && e.getCause() != e) {
      e = e.getCause();
    }
    return e;
  }

  private static Process launch(String name, List<String> command, Map<String, String> env)
      throws IOException {
    Path log = Infra.workDir().resolve(name + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putAll(env);
    return builder.start();
  }

  private static void awaitReady(String name, Process process, URI health, Duration atMost) {
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException(
                    name + " exited: " + Files.readString(Infra.workDir().resolve(name + ".log")));
              }
              try {
                return HTTP.send(
                            HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).build(),
                            HttpResponse.BodyHandlers.discarding())
                        .statusCode()
                    == 200;
              } catch (IOException e) {
                return false; // not listening yet
              }
            });
  }

  private static void stop(Process process) throws InterruptedException {
    if (process != null) {
      process.descendants().forEach(ProcessHandle::destroy);
      process.destroy();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  // ---- ours

  /**
   * Two instances of the packaged app on the dev server and Redis, the primary lane at the model's
   * quota, the backup model configured. A question's outcome is read from Temporal visibility (its
   * close time, answer level and stage), as a chat back end following the status URL would learn
   * it, without polling load on the apps.
   */
  static final class Ours implements Contestant {
    private final AppProcess first;
    private final AppProcess second;
    private final String taskQueue;
    private final WorkflowClient temporal = Infra.temporalClient();
    private final io.lettuce.core.RedisClient redis =
        io.lettuce.core.RedisClient.create(Infra.redisUrl());
    private final io.lettuce.core.api.StatefulRedisConnection<String, String> ledger =
        redis.connect();
    private final Map<Integer, String> workflows = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<Integer, Integer> attempts = new java.util.concurrent.ConcurrentHashMap<>();

    Ours(FakeModel primary, FakeModel backup, double quota, List<String> jvm) throws Exception {
      taskQueue = Infra.uniqueTaskQueue("peers");
      Map<String, String> env = FlowControlIT.laneEnv(taskQueue, primary.baseUrl(), quota, 16);
      env.put("LLM_BACKUP_BASE_URL", backup.baseUrl());
      env.put("LLM_BACKUP_MODEL", "fake-backup");
      env.put("LLM_API_KEY", "bench");
      env.put("LLM_BACKUP_API_KEY", "bench");
      CompletableFuture<AppProcess> one = AppProcess.starting("peers-ours-1", env, jvm);
      CompletableFuture<AppProcess> two = AppProcess.starting("peers-ours-2", env, jvm);
      first = one.join();
      second = two.join();
    }

    @Override
    public String name() {
      return "ours";
    }

    @Override
    public CompletableFuture<Result> ask(Question question, boolean retrying) {
      AppProcess app = question.n() % 2 == 0 ? first : second;
      String body =
          json(
              Map.of(
                  "sessionId", "peers-" + question.n() + "-" + question.offeredMicros(),
                  "userId", "peers-user-" + question.n(),
                  "clientMsgId", "m-" + question.n(),
                  "text", question.text()));
      java.util.function.Supplier<CompletableFuture<HttpResponse<String>>> post =
          () -> {
            attempts.merge(question.n(), 1, Integer::sum);
            return HTTP.sendAsync(
                HttpRequest.newBuilder(app.uri("/api/v1/questions"))
                    .timeout(PATIENCE)
                    .header("Authorization", app.credentialsFor("/api/v1/questions"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
          };
      CompletableFuture<Result> accepted =
          post.get()
              .thenCompose(
                  response ->
                      response.statusCode() == 202 || !retrying
                          ? CompletableFuture.completedFuture(response)
                          : post.get())
              .thenApply(response -> accepted(question, response))
              .exceptionally(
                  e ->
                      new Result(
                          Level.ERROR, BenchFigures.nowMicros(), 1, rootCause(e).toString()));
      if (retrying) {
        // the back end's patience: still no answer after 10 s, it submits the question again (the
        // same clientMsgId: the service answers with the same workflow and starts nothing)
        CompletableFuture.delayedExecutor(SLOW.toMillis(), TimeUnit.MILLISECONDS)
            .execute(
                () -> {
                  String id = workflows.get(question.n());
                  if (id != null && !answered(app, id)) {
                    post.get().join();
                  }
                });
      }
      return accepted;
    }

    private boolean answered(AppProcess app, String workflowId) {
      try {
        return "ANSWERED".equals(app.status(workflowId).path("stage").asText());
      } catch (Exception e) {
        return false;
      }
    }

    private Result accepted(Question question, HttpResponse<String> response) {
      if (response.statusCode() != 202) {
        return new Result(
            Level.ERROR, BenchFigures.nowMicros(), 1, "HTTP " + response.statusCode());
      }
      try {
        workflows.put(question.n(), JSON.readTree(response.body()).path("workflowId").asText());
      } catch (IOException e) {
        return new Result(Level.ERROR, BenchFigures.nowMicros(), 1, "202 without JSON");
      }
      return null; // the answer comes later: collect()
    }

    @Override
    public Map<Integer, Result> collect(long deadlineMicros) throws Exception {
      // until nothing is in progress (a ticket waits for a person: settled), or the deadline
      waitAtMost(
          Duration.ofNanos((deadlineMicros - BenchFigures.nowMicros()) * 1000),
          Duration.ofSeconds(1),
          () -> running() == 0);
      Map<String, Integer> byId = new HashMap<>();
      workflows.forEach((n, id) -> byId.put(id, n));
      Map<Integer, Result> results = new HashMap<>();
      com.google.protobuf.ByteString page = com.google.protobuf.ByteString.EMPTY;
      do {
        ListWorkflowExecutionsResponse response =
            temporal
                .getWorkflowServiceStubs()
                .blockingStub()
                .listWorkflowExecutions(
                    ListWorkflowExecutionsRequest.newBuilder()
                        .setNamespace(Infra.namespace())
                        .setQuery("TaskQueue = '" + taskQueue + "'")
                        .setPageSize(1000)
                        .setNextPageToken(page)
                        .build());
        for (WorkflowExecutionInfo info : response.getExecutionsList()) {
          Integer n = byId.get(info.getExecution().getWorkflowId());
          if (n != null) {
            results.put(n, result(info, attempts.getOrDefault(n, 1)));
          }
        }
        page = response.getNextPageToken();
      } while (!page.isEmpty());
      return results;
    }

    private static Result result(WorkflowExecutionInfo info, int attempts) {
      String stage = keyword(info, "Stage");
      String level = keyword(info, "AnswerLevel");
      boolean closed = info.hasCloseTime();
      long closeMicros =
          closed
              ? info.getCloseTime().getSeconds() * 1_000_000 + info.getCloseTime().getNanos() / 1000
              : -1;
      if ("TICKETED".equals(stage) || "TICKET".equals(level)) {
        return new Result(Level.TICKET, -1, attempts, "ticket");
      }
      if (!closed) {
        return new Result(Level.ERROR, -1, attempts, "no answer yet (" + stage + ")");
      }
      return switch (level == null ? "" : level) {
        case "RAG", "LLM" -> new Result(Level.FULL, closeMicros, attempts, level);
        case "FAQ", "KEYWORD", "TEMPLATE" ->
            new Result(Level.FALLBACK, closeMicros, attempts, level);
        default ->
            new Result(
                Level.ERROR, closeMicros, attempts, "closed: " + info.getStatus() + " " + level);
      };
    }

    private static String keyword(WorkflowExecutionInfo info, String name) {
      Payload payload = info.getSearchAttributes().getIndexedFieldsMap().get(name);
      if (payload == null) {
        return null;
      }
      try {
        return JSON.readTree(payload.getData().toString(StandardCharsets.UTF_8)).asText();
      } catch (IOException e) {
        return null;
      }
    }

    /** Questions in progress: running and not handed to a person. */
    private long running() {
      return temporal
          .getWorkflowServiceStubs()
          .blockingStub()
          .countWorkflowExecutions(
              io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest.newBuilder()
                  .setNamespace(Infra.namespace())
                  .setQuery(
                      "TaskQueue = '"
                          + taskQueue
                          + "' AND ExecutionStatus = 'Running' AND Stage != 'TICKETED'")
                  .build())
          .getCount();
    }

    @Override
    public long queueDepth() {
      return ledger.sync().zcard("cs:lane:" + taskQueue + "-model-primary:waiting");
    }

    @Override
    public void settle() throws Exception {
      waitAtMost(
          Duration.ofMinutes(3), Duration.ofSeconds(1), () -> running() == 0 && queueDepth() == 0);
    }

    @Override
    public List<Long> pids() {
      return List.of(first.pid(), second.pid());
    }

    @Override
    public void close() throws Exception {
      ledger.close();
      redis.shutdown();
      temporal.getWorkflowServiceStubs().shutdown();
      Infra.closeAll(first, second);
    }
  }

  // ---- naive

  /**
   * bench/naive: one Spring Boot app that calls the model inside the request (30 s timeout,
   * Tomcat's default 200 threads) and answers from the FAQ when the call fails.
   */
  static final class Naive implements Contestant {
    private final Process process;
    private final URI ask;

    Naive(FakeModel primary, List<String> jvm) throws Exception {
      Path jar = Infra.repoRoot().resolve("bench/naive/target/naive-bot.jar");
      if (!Files.exists(jar)) {
        throw new IllegalStateException(jar + " is missing: mvn -pl bench/naive package");
      }
      int port = AppProcess.freePort();
      List<String> command = new ArrayList<>(List.of(AppProcess.javaBinary()));
      command.addAll(jvm);
      command.addAll(List.of("-jar", jar.toString(), "--server.port=" + port));
      process =
          launch(
              "peers-naive",
              command,
              Map.of(
                  "LLM_BASE_URL",
                  primary.baseUrl(),
                  "LLM_API_KEY",
                  "bench",
                  "LLM_MODEL",
                  "fake-qwen",
                  // an index directory of its own, built at its first start and reused after
                  "FAQ_INDEX_DIR",
                  Infra.repoRoot().resolve("data").resolve("faq-index-naive").toString()));
      ask = URI.create("http://127.0.0.1:" + port + "/ask");
      awaitReady(
          "peers-naive",
          process,
          URI.create("http://127.0.0.1:" + port + "/actuator/health"),
          Duration.ofSeconds(120));
    }

    @Override
    public String name() {
      return "naive";
    }

    @Override
    public CompletableFuture<Result> ask(Question question, boolean retrying) {
      String body = json(Map.of("question", question.text()));
      return synchronous(
          () ->
              HttpRequest.newBuilder(ask)
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body)),
          response -> {
            if (response.statusCode() != 200) {
              return new Result(
                  Level.ERROR, BenchFigures.nowMicros(), 0, "HTTP " + response.statusCode());
            }
            String level = readLevel(response.body());
            return new Result(
                "llm".equals(level) ? Level.FULL : Level.FALLBACK,
                BenchFigures.nowMicros(),
                0,
                level);
          },
          question,
          false,
          retrying);
    }

    private static String readLevel(String body) {
      try {
        return JSON.readTree(body).path("level").asText();
      } catch (IOException e) {
        return "?";
      }
    }

    @Override
    public List<Long> pids() {
      return List.of(process.pid());
    }

    @Override
    public void close() throws Exception {
      stop(process);
    }
  }

  // ---- LiteLLM

  /**
   * Two LiteLLM proxies (bench/litellm: pinned, in a virtual environment) sharing usage through
   * Redis, the primary at its rpm with num_retries 2, a fallback to the backup, cooldowns; the back
   * end calls a proxy (round robin) and retries an error once, as the thin client does.
   */
  static final class LiteLlm implements Contestant {
    private final List<Process> proxies = new ArrayList<>();
    private final List<URI> endpoints = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();

    LiteLlm(FakeModel primary, FakeModel backup, double quota, double backupQuota)
        throws Exception {
      Path root = Infra.repoRoot();
      Process install =
          new ProcessBuilder("bash", root.resolve("bench/litellm/install.sh").toString())
              .redirectErrorStream(true)
              .start();
      String out = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!install.waitFor(15, TimeUnit.MINUTES) || install.exitValue() != 0) {
        throw new IllegalStateException("bench/litellm/install.sh failed:\n" + out);
      }
      String[] lines = out.strip().split("\n");
      String litellm = lines[lines.length - 1].strip();
      URI redis = URI.create(Infra.redisUrl());
      for (int i = 1; i <= 2; i++) {
        int port = AppProcess.freePort();
        Map<String, String> env = new HashMap<>();
        env.put("PRIMARY_BASE_URL", primary.baseUrl());
        env.put("BACKUP_BASE_URL", backup.baseUrl());
        env.put("MODEL_RPM", String.valueOf((int) Math.round(quota * 60)));
        env.put("BACKUP_RPM", String.valueOf((int) Math.round(backupQuota * 60)));
        env.put("REDIS_HOST", redis.getHost());
        env.put("REDIS_PORT", String.valueOf(redis.getPort()));
        env.put("LITELLM_LOCAL_MODEL_COST_MAP", "True");
        env.put("LITELLM_TELEMETRY_DISABLED", "true");
        Process proxy =
            launch(
                "peers-litellm-" + i,
                List.of(
                    litellm,
                    "--config",
                    root.resolve("bench/litellm/config.yaml").toString(),
                    "--host",
                    "127.0.0.1",
                    "--port",
                    String.valueOf(port)),
                env);
        proxies.add(proxy);
        awaitReady(
            "peers-litellm-" + i,
            proxy,
            URI.create("http://127.0.0.1:" + port + "/health/liveliness"),
            Duration.ofSeconds(180));
        endpoints.add(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"));
      }
    }

    @Override
    public String name() {
      return "litellm";
    }

    @Override
    public CompletableFuture<Result> ask(Question question, boolean retrying) {
      String body =
          json(
              Map.of(
                  "model",
                  "questionflow-llm",
                  "messages",
                  List.of(
                      Map.of("role", "system", "content", "You answer bank customers briefly."),
                      Map.of("role", "user", "content", question.text()))));
      // the thin client retries an error once in every scenario; retrying adds the 10 s rule
      return synchronous(
          () ->
              HttpRequest.newBuilder(
                      endpoints.get(Math.floorMod(next.getAndIncrement(), endpoints.size())))
                  .header("Content-Type", "application/json")
                  .header("Authorization", "Bearer sk-questionflow-bench")
                  .POST(HttpRequest.BodyPublishers.ofString(body)),
          response ->
              response.statusCode() == 200
                  ? new Result(
                      Level.FULL,
                      BenchFigures.nowMicros(),
                      0,
                      response.headers().firstValue("x-litellm-model-id").orElse("?"))
                  : new Result(
                      Level.ERROR, BenchFigures.nowMicros(), 0, "HTTP " + response.statusCode()),
          question,
          true,
          retrying);
    }

    @Override
    public List<Long> pids() {
      List<Long> pids = new ArrayList<>();
      for (Process proxy : proxies) {
        pids.add(proxy.pid());
        proxy.descendants().forEach(d -> pids.add(d.pid()));
      }
      return pids;
    }

    @Override
    public void close() throws Exception {
      for (Process proxy : proxies) {
        stop(proxy);
      }
    }
  }
}
