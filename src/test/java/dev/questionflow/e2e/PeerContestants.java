package dev.questionflow.e2e;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.activities.lane.LaneRates;
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

  /**
   * What the chat back end learned about one question: its first answer (for the naive bot and
   * LiteLLM their only one), and for ours a model's answer that replaced a quick one.
   *
   * @param level the first answer's level
   * @param firstMicros when the customer got the first answer (or saw the error); -1: never
   * @param upgradeMicros when a model's answer replaced a quick (FAQ or keyword) first answer; -1:
   *     none came
   */
  record Result(Level level, long firstMicros, int attempts, String detail, long upgradeMicros) {

    /** A first answer and no upgrade. */
    Result(Level level, long firstMicros, int attempts, String detail) {
      this(level, firstMicros, attempts, detail, -1);
    }

    boolean upgraded() {
      return upgradeMicros >= 0;
    }

    /** When the customer got a model's answer, first or upgraded; -1: never. */
    long modelAnswerMicros() {
      return level == Level.FULL ? firstMicros : upgradeMicros;
    }
  }

  /**
   * A question as offered: its number in the scenario, its text (with the tag), whether its
   * customer is a VIP and whether the back end asks for a fuller answer after a quick one (ours
   * only: the others have neither tiers nor upgrades).
   */
  record Question(int n, String text, long offeredMicros, boolean vip, boolean upgrade) {}

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
     * question number, once {@code deadlineMicros} passed or every question has its first answer
     * ({@code upgrades}: or once none is in progress, so the upgrades are in). Others: empty.
     */
    default Map<Integer, Result> collect(long deadlineMicros, boolean upgrades) throws Exception {
      return Map.of();
    }

    /**
     * Waits until no question of the last scenario is in progress in the contestant, so the next
     * scenario starts from the same quiet state.
     */
    default void settle() throws Exception {}

    /**
     * Forgets what the last storm taught the contestant, as a long quiet would: each scenario is a
     * storm of its own against a rested service (ours: the lanes' adaptive rates, which climb back
     * by 10 % of the quota a minute after a halving, and their call statistics). The others keep
     * nothing that outlives a scenario.
     */
    default void rest() throws Exception {}

    /**
     * The entries left in the contestant's lane ledger (ours), read after {@link #settle}; null
     * when it has none.
     */
    default Long ledgerEntries() {
      return null;
    }

    /** The questions waiting in the contestant's own queue now, or -1 if it has none to read. */
    default long queueDepth() {
      return -1;
    }

    /**
     * Where a question's time went (ours: its activities from the workflow's history, in seconds
     * after {@code offeredMicros}); empty when the contestant has nothing to show.
     */
    default String timeline(int n, long offeredMicros) {
      return "";
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
    return new Result(
        result.level(), result.firstMicros(), attempts, result.detail(), result.upgradeMicros());
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

  /** Waits until the process answers its health check; one that never does is stopped. */
  private static void awaitReady(String name, Process process, URI health, Duration atMost) {
    try {
      awaitHealthy(name, process, health, atMost);
    } catch (RuntimeException e) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      throw e;
    }
  }

  private static void awaitHealthy(String name, Process process, URI health, Duration atMost) {
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
   * A setting of ours that differs from the product's default, and why.
   *
   * @param shown the value as the report shows it (keys left out)
   */
  record Setting(String variable, String value, String shown, String why) {}

  /**
   * Two instances of the packaged app on the dev server and Redis, with the product's defaults
   * except {@link Ours#settings}, the backup model configured. A question's outcome is read from
   * Temporal visibility, as a chat back end following the status URL would learn it, without
   * polling load on the apps: its first answer from {@code FirstAnswerAt} and {@code
   * FirstAnswerLevel} (an app from before first answers: its close time and {@code AnswerLevel}),
   * an upgrade from a workflow that closed with a model's {@code AnswerLevel} after a quick first
   * answer.
   */
  static final class Ours implements Contestant {
    private final AppProcess first;
    private final AppProcess second;
    private final String taskQueue;
    private final double quota;
    private final WorkflowClient temporal = Infra.temporalClient();
    private final io.lettuce.core.RedisClient redis =
        io.lettuce.core.RedisClient.create(Infra.redisUrl());
    private final io.lettuce.core.api.StatefulRedisConnection<String, String> ledger =
        redis.connect();
    private final Map<Integer, String> workflows = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<Integer, Integer> attempts = new java.util.concurrent.ConcurrentHashMap<>();

    /** The levels of a model's answer and of a quick one. */
    private static final java.util.Set<String> MODEL_LEVELS = java.util.Set.of("RAG", "LLM");

    private static final java.util.Set<String> QUICK_LEVELS = java.util.Set.of("FAQ", "KEYWORD");

    /** False once the server refused a query on FirstAnswerAt (an app from before it). */
    private volatile boolean firstAnswersIndexed = true;

    /**
     * The settings that differ from the product's defaults (besides the wiring: a task queue of its
     * own, the fake models' URLs, names and keys), each with its reason; the report lists them.
     */
    static List<Setting> settings(double quota) {
      return List.of(
          new Setting(
              "LANE_PRIMARY_RATE",
              String.valueOf((int) quota),
              String.valueOf((int) quota),
              "the primary's quota (the fake's token bucket), as an operator sets it; default 10"),
          new Setting(
              "LANE_BACKUP_RATE",
              String.valueOf((int) PeersBenchmarkIT.BACKUP_QUOTA),
              String.valueOf((int) PeersBenchmarkIT.BACKUP_QUOTA),
              "the backup's quota (its fake's token bucket), as an operator sets it; default 5"),
          new Setting(
              "LANE_PRIMARY_MAX_CONCURRENT",
              "100",
              "100",
              "the provider's limit of calls in flight, a cap across both instances (the fake"
                  + " model has none; the naive bot's Tomcat has 200 threads); default 5"),
          new Setting(
              "CS_ACCESSLIMITS_PERIP_ENABLED",
              "false",
              "false",
              "every question comes from 127.0.0.1: the per-IP limit would refuse them before the"
                  + " lanes (as in the lane tests, FlowControlIT.laneEnv; the global limit stays"
                  + " on)"),
          new Setting(
              "CS_ACCESSLIMITS_PERUSER_ENABLED",
              "false",
              "false",
              "the benchmark's user IDs repeat from scenario to scenario and the limits are tested"
                  + " elsewhere (AccessLimitsApiTest): the benchmark measures the lanes, not"
                  + " admission (as in the lane tests)"),
          new Setting(
              "CALLER_API_KEYS",
              "e2e-backend:" + AppProcess.CALLER_KEY + ":VIP",
              "e2e-backend:…:VIP",
              "the back end's key may assert the VIP tier; it does so for the overload's VIP"
                  + " questions only (the others are standard: no tier sent)"));
    }

    Ours(FakeModel primary, FakeModel backup, double quota, List<String> jvm) throws Exception {
      this.quota = quota;
      taskQueue = Infra.uniqueTaskQueue("peers");
      Map<String, String> env = new HashMap<>();
      env.put("TASK_QUEUE", taskQueue);
      env.put("LLM_BASE_URL", primary.baseUrl());
      env.put("LLM_MODEL", "fake-qwen");
      for (Setting setting : settings(quota)) {
        env.put(setting.variable(), setting.value());
      }
      env.put("LLM_BACKUP_BASE_URL", backup.baseUrl());
      env.put("LLM_BACKUP_MODEL", "fake-backup");
      env.put("LLM_API_KEY", "bench");
      env.put("LLM_BACKUP_API_KEY", "bench");
      // an experiment's extra settings (-Dpeers.ours.env=NAME=VALUE,...): never in a published run,
      // whose settings are only those listed above
      for (String pair : System.getProperty("peers.ours.env", "").split(",")) {
        if (pair.contains("=")) {
          env.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
        }
      }
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
      Map<String, Object> fields = new java.util.LinkedHashMap<>();
      fields.put("sessionId", "peers-" + question.n() + "-" + question.offeredMicros());
      fields.put("userId", "peers-user-" + question.n());
      fields.put("clientMsgId", "m-" + question.n());
      fields.put("text", question.text());
      if (question.vip()) {
        fields.put("tier", "VIP");
      }
      if (question.upgrade()) {
        fields.put("upgrade", true);
      }
      String body = json(fields);
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

    /** The first answer is in (the stage stays ANSWERED while an upgrade is awaited). */
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
    public String timeline(int n, long offeredMicros) {
      String id = workflows.get(n);
      if (id == null) {
        return "";
      }
      Map<Long, String> types = new HashMap<>();
      StringBuilder line = new StringBuilder(id);
      for (io.temporal.api.history.v1.HistoryEvent event :
          temporal.fetchHistory(id).getHistory().getEventsList()) {
        double at =
            (event.getEventTime().getSeconds() * 1_000_000L
                    + event.getEventTime().getNanos() / 1000
                    - offeredMicros)
                / 1e6;
        switch (event.getEventType()) {
          case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> {
            String type =
                event.getActivityTaskScheduledEventAttributes().getActivityType().getName();
            types.put(event.getEventId(), type);
            line.append(String.format(" | %s sched %.2f", type, at));
          }
          case EVENT_TYPE_ACTIVITY_TASK_STARTED ->
              line.append(
                  String.format(
                      " %s start %.2f",
                      types.get(
                          event.getActivityTaskStartedEventAttributes().getScheduledEventId()),
                      at));
          case EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
              EVENT_TYPE_ACTIVITY_TASK_FAILED,
              EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT ->
              line.append(String.format(" %s %.2f", event.getEventType().name().substring(25), at));
          case EVENT_TYPE_WORKFLOW_TASK_SCHEDULED -> line.append(String.format(" | wt %.2f", at));
          case EVENT_TYPE_WORKFLOW_TASK_STARTED,
              EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
              EVENT_TYPE_WORKFLOW_TASK_FAILED,
              EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT ->
              line.append(String.format(" %s %.2f", event.getEventType().name().substring(25), at));
          case EVENT_TYPE_MARKER_RECORDED -> {} // local activities: at their task's completion
          case EVENT_TYPE_TIMER_STARTED -> line.append(String.format(" | timer %.2f", at));
          default -> {}
        }
      }
      return line.toString();
    }

    @Override
    public Map<Integer, Result> collect(long deadlineMicros, boolean upgrades) throws Exception {
      // until every question has its first answer (a ticket waits for a person: settled) or, when
      // upgrades were asked for, until nothing is in progress; at most until the deadline
      waitAtMost(
          Duration.ofNanos((deadlineMicros - BenchFigures.nowMicros()) * 1000),
          Duration.ofSeconds(1),
          () -> (upgrades ? running() : withoutFirstAnswer()) == 0);
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

    /**
     * A question's outcome from visibility. First answer: {@code FirstAnswerAt} and {@code
     * FirstAnswerLevel} when set, else (an app from before first answers) the close time and {@code
     * AnswerLevel}. Upgraded: a quick first answer (FAQ, KEYWORD) and a model's latest answer (RAG,
     * LLM) in a closed workflow, at its close time.
     */
    private static Result result(WorkflowExecutionInfo info, int attempts) {
      String stage = keyword(info, "Stage");
      String level = keyword(info, "AnswerLevel");
      String firstLevel = keyword(info, "FirstAnswerLevel");
      long firstAt = datetimeMicros(info, "FirstAnswerAt");
      boolean closed = info.hasCloseTime();
      long closeMicros =
          closed
              ? info.getCloseTime().getSeconds() * 1_000_000 + info.getCloseTime().getNanos() / 1000
              : -1;
      String first = firstLevel != null ? firstLevel : level;
      long firstMicros = firstAt >= 0 ? firstAt : closeMicros;
      if ("TICKETED".equals(stage) || "TICKET".equals(first)) {
        return new Result(Level.TICKET, -1, attempts, "ticket");
      }
      if (firstMicros < 0) {
        return new Result(Level.ERROR, -1, attempts, "no answer yet (" + stage + ")");
      }
      long upgradeMicros =
          closed && QUICK_LEVELS.contains(firstLevel) && MODEL_LEVELS.contains(level)
              ? closeMicros
              : -1;
      return switch (first == null ? "" : first) {
        case "RAG", "LLM" -> new Result(Level.FULL, firstMicros, attempts, first);
        case "FAQ", "KEYWORD", "TEMPLATE" ->
            new Result(
                Level.FALLBACK,
                firstMicros,
                attempts,
                upgradeMicros >= 0 ? first + " then " + level : first,
                upgradeMicros);
        default ->
            new Result(
                Level.ERROR, firstMicros, attempts, "closed: " + info.getStatus() + " " + first);
      };
    }

    /**
     * A Datetime search attribute (an ISO-8601 string in the payload) in epoch micros; -1: none.
     */
    private static long datetimeMicros(WorkflowExecutionInfo info, String name) {
      String text = keyword(info, name);
      if (text == null || text.isBlank()) {
        return -1;
      }
      try {
        java.time.Instant at = java.time.OffsetDateTime.parse(text).toInstant();
        return at.getEpochSecond() * 1_000_000 + at.getNano() / 1000;
      } catch (java.time.format.DateTimeParseException e) {
        return -1;
      }
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

    /** Questions in progress: running and not handed to a person (an upgrade awaited too). */
    private long running() {
      return count(
          "TaskQueue = '"
              + taskQueue
              + "' AND ExecutionStatus = 'Running' AND Stage != 'TICKETED'");
    }

    /**
     * Questions in progress without a first answer; an app from before first answers has no
     * FirstAnswerAt search attribute (the server refuses the query): there, {@link #running}.
     */
    private long withoutFirstAnswer() {
      if (firstAnswersIndexed) {
        try {
          return count(
              "TaskQueue = '"
                  + taskQueue
                  + "' AND ExecutionStatus = 'Running' AND Stage != 'TICKETED'"
                  + " AND FirstAnswerAt IS NULL");
        } catch (io.grpc.StatusRuntimeException e) {
          if (e.getStatus().getCode() != io.grpc.Status.Code.INVALID_ARGUMENT) {
            throw e;
          }
          firstAnswersIndexed = false;
        }
      }
      return running();
    }

    private long count(String query) {
      return temporal
          .getWorkflowServiceStubs()
          .blockingStub()
          .countWorkflowExecutions(
              io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest.newBuilder()
                  .setNamespace(Infra.namespace())
                  .setQuery(query)
                  .build())
          .getCount();
    }

    @Override
    public long queueDepth() {
      return ledger.sync().zcard("cs:lane:{" + taskQueue + "-model-primary}:waiting");
    }

    /**
     * Until no question is in progress (at most 3 minutes). The lanes' ledger is not waited for:
     * what it still holds then is {@link #ledgerEntries}.
     */
    @Override
    public void settle() throws Exception {
      waitAtMost(Duration.ofMinutes(3), Duration.ofSeconds(1), () -> running() == 0);
    }

    /**
     * The lanes' rates and statistics in Redis are deleted; the lane leader then sets the
     * configured rate on the server again within its next check (LaneRateController follows the
     * ledger), which is waited for on the server itself.
     */
    @Override
    public void rest() throws Exception {
      var redis = ledger.sync();
      for (String lane : List.of("primary", "backup")) {
        String key = "cs:lane:{" + taskQueue + "-model-" + lane + "}:";
        redis.del(key + "rate");
        List<String> stats = redis.keys(key + "stats:*");
        if (!stats.isEmpty()) {
          redis.del(stats.toArray(String[]::new));
        }
      }
      waitAtMost(
          Duration.ofSeconds(30),
          Duration.ofMillis(200),
          () ->
              serverRate("primary") == (float) LaneRates.serverLimit(quota)
                  && serverRate("backup")
                      == (float) LaneRates.serverLimit(PeersBenchmarkIT.BACKUP_QUOTA));
    }

    /** The lane's rate limit on the Temporal server (calls/s). */
    private float serverRate(String lane) {
      return temporal
          .getWorkflowServiceStubs()
          .blockingStub()
          .describeTaskQueue(
              io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest.newBuilder()
                  .setNamespace(Infra.namespace())
                  .setTaskQueue(
                      io.temporal.api.taskqueue.v1.TaskQueue.newBuilder()
                          .setName(taskQueue + "-model-" + lane))
                  .setTaskQueueType(io.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)
                  .setReportConfig(true)
                  .build())
          .getConfig()
          .getQueueRateLimit()
          .getRateLimit()
          .getRequestsPerSecond();
    }

    /**
     * Entries in both lanes' ledgers: waiting, enqueued, started more than 60 s ago (younger ones
     * are kept on purpose) and calls in flight. Once no question is in progress the product must
     * have none left.
     */
    @Override
    public Long ledgerEntries() {
      long stale = System.currentTimeMillis() - 60_000;
      var redis = ledger.sync();
      long entries = 0;
      for (String lane : List.of("primary", "backup")) {
        String key = "cs:lane:{" + taskQueue + "-model-" + lane + "}:";
        entries += redis.zcard(key + "waiting");
        entries += redis.zcard(key + "enqueued");
        entries +=
            redis.zcount(
                key + "started",
                io.lettuce.core.Range.from(
                    io.lettuce.core.Range.Boundary.unbounded(),
                    io.lettuce.core.Range.Boundary.excluding(stale)));
        entries += redis.zcard(key + "inflight");
      }
      return entries;
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
      Path index = Infra.repoRoot().resolve("data").resolve("faq-index-naive");
      // its first start on a machine embeds the whole FAQ pack (205 s on 2 cores)
      Duration ready = Duration.ofSeconds(Files.isDirectory(index) ? 120 : 600);
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
                  index.toString()));
      ask = URI.create("http://127.0.0.1:" + port + "/ask");
      awaitReady(
          "peers-naive",
          process,
          URI.create("http://127.0.0.1:" + port + "/actuator/health"),
          ready);
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
