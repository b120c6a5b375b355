package dev.questionflow.e2e;

import static dev.questionflow.e2e.BenchFigures.percentile;
import static dev.questionflow.e2e.BenchFigures.round;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * {@code bin/bench throughput}: what a question costs against what a bare workflow costs, side by
 * side in one run on one dev server, from outside the processes measured.
 *
 * <ol>
 *   <li><b>bare</b>: a one-activity workflow ({@link BareWorker}, same SDK, codec and JVM flags as
 *       the app, in its own process);
 *   <li><b>faq</b>: the app without a model, so every answer comes from the FAQ;
 *   <li><b>rag</b>: the app with a zero-latency fake model in its own process and a lane rate far
 *       above what the machine can reach.
 * </ol>
 *
 * <p>Each phase: the first {@code bench.first.jobs} (500) jobs after the process is up (their own
 * figures, with the CPU of the JIT compiler threads apart), then warm-up batches until the JIT
 * settles (fewer than {@value #SETTLED_COMPILES_PER_SECOND} compilations per second, or {@code
 * bench.warmup.max} jobs), then {@code bench.questions} (default 600) measured jobs, all with
 * {@code bench.callers} (default 16) concurrent callers that each start one and wait for its
 * result. Printed and written to {@code e2e/target/bench/throughput.json} and {@code .txt}.
 */
@EnabledIfSystemProperty(named = "flow.bench", matches = "true")
class ThroughputBenchmarkIT {

  private static final int CALLERS = Integer.getInteger("bench.callers", 16);
  private static final int MEASURED = Integer.getInteger("bench.questions", 600);
  private static final int WARMUP_MAX = Integer.getInteger("bench.warmup.max", 1500);

  /**
   * Jobs of each kind measured in the side-by-side phase: a p99 of 600 is the 6th-slowest job and
   * moved 1.39x -> 1.71x between two runs of the same code; of 1,500 (the 15th) it still moved
   * 0.97x, 1.17x, 1.30x and 1.40x in four runs of one day's code; of 4,500 (the 45th): 1.17x and
   * 1.10x.
   */
  private static final int SIDE_MEASURED = Integer.getInteger("bench.side.questions", 4500);

  private static final int WARMUP_BATCH = 100;
  private static final double SETTLED_COMPILES_PER_SECOND = 5;

  /** The warm-up measure: the first 500 questions after start, against steady state. */
  private static final int FIRST_JOBS = Integer.getInteger("bench.first.jobs", 500);

  /**
   * Which phases to run, in this order (bare, faq, rag, side; a phase may come more than once).
   * Each question phase's ratios are to the mean of the bare phases just before and just after it:
   * every phase leaves thousands of workflows in the server's database, so a bare phase run first,
   * on the emptiest database, would flatter the baseline of every later phase. Side measures bare
   * starts and question accepts together ({@link #sideBySide}).
   */
  private static final List<String> PHASES =
      List.of(System.getProperty("bench.phases", "bare,faq,roles,bare,rag,bare,side").split(","));

  private static final int HISTORY_SAMPLE = 20;

  /** The documented launch command's flags (bin/run: java $JAVA_OPTS -jar), plus a fixed heap. */
  private static final List<String> LAUNCH =
      List.of(System.getProperty("bench.jvm", "-Xmx512m -XX:TieredStopAtLevel=1").split(" "));

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** One measured stretch of jobs. */
  record Window(
      int jobs,
      double seconds,
      double perSecond,
      double acceptP50Ms,
      double acceptP99Ms,
      double doneP50Ms,
      double doneP99Ms,
      double workerCpuMsPerJob,
      double workerJitCpuMsPerJob,
      double serverCpuMsPerJob,
      double benchCpuMsPerJob,
      double compilationsPerSecond,
      Map<String, Integer> outcomes,
      Map<String, Double> acceptByKind,
      Map<String, Double> perJob) {}

  /**
   * Running totals read before and after a window ({@link Window#perJob}: their growth per job):
   * Redis commands, model tokens, a role's CPU.
   */
  interface Probe {
    Map<String, Double> totals() throws Exception;
  }

  /** Per workflow, averaged over a sample of the measured window's histories. */
  record Histories(
      double events,
      double workflowTasks,
      double activityTasks,
      double localActivities,
      double searchAttributeUpserts,
      double timers,
      double actions,
      double bytes) {}

  record Phase(
      String name,
      Window firstJobs,
      int warmupJobs,
      double warmupEndCompilationsPerSecond,
      Window measured,
      Histories histories,
      Map<String, Double> serviceMs) {

    Phase withService(Map<String, Double> ms) {
      return new Phase(
          name, firstJobs, warmupJobs, warmupEndCompilationsPerSecond, measured, histories, ms);
    }
  }

  /**
   * A phase against its baselines ({@link #baselines}, by index in the run): completions per second
   * and accept p99, each divided by the baselines' mean.
   */
  record Ratio(String phase, List<Integer> baselines, double donePerSecond, double acceptP99) {}

  /** Starts one job and returns its workflow ID; then waits for its outcome (a label). */
  private static final String BARE_PREFIX = "bare-";

  interface Job {
    String start(int i) throws Exception;

    String await(String workflowId) throws Exception;
  }

  @Test
  void bareWorkflowThenQuestionsAtFaqAndRagLevel() throws Exception {
    List<String> texts = questionTexts();
    WorkflowClient client = Infra.temporalClient();
    // the dev server this benchmark talks to: another one on the machine (a second checkout's)
    // would report its own idle CPU
    String port = Infra.temporalAddress().replaceFirst("^.*:", "");
    long server =
        ProcessStats.find("server start-dev", "--port " + port + " ")
            .orElseThrow(
                () -> new IllegalStateException("no Temporal dev server process on port " + port));
    List<Phase> phases = new ArrayList<>();
    try {
      for (String name : PHASES) {
        phases.add(
            switch (name) {
              case "bare" -> bare(client, server, texts);
              case "faq" -> questions("faq", client, server, texts, Map.of());
              case "rag" -> rag(client, server, texts);
              case "roles" -> roles(client, server, texts);
              case "faqbase" -> questions("faqbase", client, server, texts, Map.of());
              case "side" -> sideBySide(client, server, texts);
              default -> throw new IllegalArgumentException("unknown phase " + name);
            });
      }
    } finally {
      client.getWorkflowServiceStubs().shutdownNow();
    }
    List<Ratio> ratios = ratios(phases);
    String table = table(phases, ratios);
    System.out.println(table);
    Path dir = Infra.repoRoot().resolve("e2e/target/bench");
    Files.createDirectories(dir);
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("at", Instant.now().toString());
    report.put("callers", CALLERS);
    report.put("java", AppProcess.javaBinary());
    report.put("jvm", LAUNCH);
    report.put("cores", Runtime.getRuntime().availableProcessors());
    report.put("phases", phases);
    report.put("ratios", ratios);
    Files.writeString(dir.resolve("throughput.json"), JSON.writeValueAsString(report));
    Files.writeString(dir.resolve("throughput.txt"), table);
    assertThat(phases).hasSize(PHASES.size());
    assertThat(phases)
        .allSatisfy(p -> assertThat(p.measured().jobs()).isEqualTo(measured(p.name())));
  }

  private Phase rag(WorkflowClient client, long server, List<String> texts) throws Exception {
    try (JavaProcesses.FakeModel model =
        JavaProcesses.FakeModel.start("bench-fake-model", "--latency-ms", "0")) {
      Map<String, String> env = new HashMap<>();
      env.put("LLM_BASE_URL", model.baseUrl());
      env.put("LLM_MODEL", "fake-instant");
      env.put("LLM_API_KEY", "bench");
      env.put("LANE_PRIMARY_RATE", "1000");
      env.put("LANE_PRIMARY_MAX_CONCURRENT", String.valueOf(2 * CALLERS));
      return questions("rag", client, server, texts, env);
    }
  }

  private Phase bare(WorkflowClient client, long server, List<String> texts) throws Exception {
    String queue = Infra.uniqueTaskQueue("bare");
    Process worker = bareWorker(queue);
    try {
      return phase(
          "bare", bareJob(client, queue, texts), worker.pid(), server, client, Probes::redis);
    } finally {
      worker.destroy();
      worker.waitFor(20, TimeUnit.SECONDS);
    }
  }

  private static Process bareWorker(String queue) throws IOException {
    return JavaProcesses.start(
        "bench-bare-worker",
        "bare worker polling",
        LAUNCH,
        BareWorker.class.getName(),
        Infra.temporalAddress(),
        Infra.namespace(),
        queue);
  }

  private static Job bareJob(WorkflowClient client, String queue, List<String> texts) {
    String run = Long.toString(System.nanoTime(), 36);
    return new Job() {
      @Override
      public String start(int i) {
        String id = BARE_PREFIX + run + "-" + i;
        client
            .newUntypedWorkflowStub(
                "Bare", WorkflowOptions.newBuilder().setTaskQueue(queue).setWorkflowId(id).build())
            .start(texts.get(i % texts.size()));
        return id;
      }

      @Override
      public String await(String workflowId) {
        client.newUntypedWorkflowStub(workflowId).getResult(String.class);
        return "completed";
      }
    };
  }

  /**
   * Bare starts and question accepts side by side: the same callers alternate between them in one
   * window, on one app and one bare worker, so both latencies see the same server, the same load
   * and the same noise. On 2 cores the p99 of one phase moves by 2-3x from run to run (the bare
   * start's: 98, 105, 126 and 280 ms in four runs of the same code), which two phases minutes apart
   * cannot be compared through; measured together, the ratio is of the two paths alone.
   */
  private Phase sideBySide(WorkflowClient client, long server, List<String> texts)
      throws Exception {
    String queue = Infra.uniqueTaskQueue("bare");
    Process worker = bareWorker(queue);
    try (AppProcess app = app("side", Map.of())) {
      Job bare = bareJob(client, queue, texts);
      Job question = questionJob("side", app, client, texts);
      Job alternate =
          new Job() {
            @Override
            public String start(int i) throws Exception {
              return (i % 2 == 0 ? bare : question).start(i);
            }

            @Override
            public String await(String workflowId) throws Exception {
              return (workflowId.startsWith(BARE_PREFIX) ? bare : question).await(workflowId);
            }
          };
      return phase("side", alternate, app.pid(), server, client, () -> Probes.app(app))
          .withService(serviceMs(app));
    } finally {
      worker.destroy();
      worker.waitFor(20, TimeUnit.SECONDS);
    }
  }

  private Phase questions(
      String name,
      WorkflowClient client,
      long server,
      List<String> texts,
      Map<String, String> extra)
      throws Exception {
    try (AppProcess app = app(name, extra)) {
      Job job = questionJob(name, app, client, texts);
      return phase(name, job, app.pid(), server, client, () -> Probes.app(app))
          .withService(serviceMs(app));
    }
  }

  /**
   * FAQ-level questions through a {@code CS_ROLE=api} instance to a {@code CS_ROLE=worker} one: the
   * CPU each role spends per question (the capacity model sizes the roles apart). The phase's app
   * CPU is the worker's; the api's is {@code perJob.apiCpuMs}.
   */
  private Phase roles(WorkflowClient client, long server, List<String> texts) throws Exception {
    String queue = Infra.uniqueTaskQueue("bench-roles");
    var apiStarting = AppProcess.starting("bench-roles-api", roleEnv(queue, "api"), LAUNCH);
    var workerStarting =
        AppProcess.starting("bench-roles-worker", roleEnv(queue, "worker"), LAUNCH);
    try (AppProcess api = apiStarting.join();
        AppProcess worker = workerStarting.join()) {
      Job job = questionJob("roles", api, client, texts);
      Probe probe =
          () -> {
            Map<String, Double> totals = new TreeMap<>(Probes.redis());
            totals.put("apiCpuMs", ProcessStats.cpuMillis(api.pid()));
            return totals;
          };
      return phase("roles", job, worker.pid(), server, client, probe).withService(serviceMs(api));
    }
  }

  private static Map<String, String> roleEnv(String queue, String role) {
    Map<String, String> env = new HashMap<>();
    env.put("TASK_QUEUE", queue);
    env.put("CS_ACCESS_LIMITS_ENABLED", "false");
    env.put("CS_ROLE", role);
    return env;
  }

  /** The totals the phases read around each window. */
  static final class Probes {

    private static io.lettuce.core.RedisClient redisClient;
    private static io.lettuce.core.api.sync.RedisCommands<String, String> redis;

    private Probes() {}

    /** Commands the benchmark's Redis has processed (every client's: the app's alone here). */
    static synchronized Map<String, Double> redis() {
      if (redis == null) {
        redisClient = io.lettuce.core.RedisClient.create(Infra.redisUrl());
        redis = redisClient.connect().sync();
        Runtime.getRuntime().addShutdownHook(new Thread(redisClient::shutdown));
      }
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("total_commands_processed:(\\d+)")
              .matcher(redis.info("stats"));
      if (!m.find()) {
        throw new IllegalStateException("INFO stats has no total_commands_processed");
      }
      // this probe's own INFO is one of them: left in (two per window, under 0.01 per question)
      return Map.of("redisCommands", Double.parseDouble(m.group(1)));
    }

    /**
     * Redis commands, the model tokens the app counted ({@code cs_model_tokens_total}, from the
     * model's usage reports), and the CPU of its HTTP threads.
     */
    static Map<String, Double> app(AppProcess app) throws Exception {
      Map<String, Double> totals = new TreeMap<>(redis());
      for (String kind : List.of("prompt", "completion")) {
        totals.put(
            kind + "Tokens",
            app.series("cs_model_tokens_total", "kind=\"" + kind + "\"").orElse(0));
      }
      totals.put(
          "httpThreadsCpuMs",
          ProcessStats.threadCpuMillis(app.pid(), n -> n.startsWith("http-nio")));
      return totals;
    }
  }

  private static OtlpReceiver traces;

  private static synchronized OtlpReceiver traces() throws java.io.IOException {
    if (traces == null) {
      traces = OtlpReceiver.counting();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    System.out.printf("[bench] tracing on: %d spans received%n", traces.count());
                    traces.close();
                  }));
    }
    return traces;
  }

  private static AppProcess app(String name, Map<String, String> extra) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("TASK_QUEUE", Infra.uniqueTaskQueue("bench-" + name));
    env.put("CS_ACCESS_LIMITS_ENABLED", "false"); // the pipeline is measured, not the door's limits
    if (Boolean.getBoolean("bench.tracing")) {
      // tracing's cost (bin/bench throughput -Dbench.tracing=true): every question traced and
      // exported, to a receiver in this JVM that counts the spans
      env.put("TRACING_ENABLED", "true");
      env.put("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", traces().endpoint());
    }
    env.putAll(extra);
    if (name.equals("faqbase")) {
      // another build of the app (-Dbench.base.jar), e.g. one from before a change whose cost is
      // in question, measured in the same run as this build's faq phase
      String base = System.getProperty("bench.base.jar");
      if (base == null) {
        throw new IllegalArgumentException("the faqbase phase needs -Dbench.base.jar=<app jar>");
      }
      List<String> command = new ArrayList<>(List.of(AppProcess.javaBinary()));
      command.addAll(LAUNCH);
      command.addAll(List.of("-jar", base));
      return AppProcess.start("bench-" + name, env, new AppProcess.Launch(command, null));
    }
    return AppProcess.start("bench-" + name, env, LAUNCH);
  }

  private static Job questionJob(
      String name, AppProcess app, WorkflowClient client, List<String> texts) {
    String run = Long.toString(System.nanoTime(), 36);
    return new Job() {
      @Override
      public String start(int i) throws Exception {
        String body =
            JSON.writeValueAsString(
                Map.of(
                    "sessionId",
                    name + "-" + run + "-" + i,
                    "userId",
                    "bench-user-" + (i % 500),
                    "clientMsgId",
                    "m1",
                    "text",
                    texts.get(i % texts.size())));
        HttpResponse<String> accepted = app.post("/api/v1/questions", body);
        if (accepted.statusCode() != 202) {
          throw new IllegalStateException(accepted.statusCode() + " " + accepted.body());
        }
        return JSON.readTree(accepted.body()).get("workflowId").asText();
      }

      /**
       * The workflow's result; a question handed over as a ticket stays open for the staff reply,
       * so its status is read every few seconds while its result does not come.
       */
      @Override
      public String await(String workflowId) throws Exception {
        var stub = client.newUntypedWorkflowStub(workflowId);
        while (true) {
          try {
            @SuppressWarnings("unchecked")
            Map<String, Object> answer = stub.getResult(3, TimeUnit.SECONDS, Map.class);
            return String.valueOf(answer.get("level"));
          } catch (java.util.concurrent.TimeoutException stillOpen) {
            if ("TICKETED".equals(app.status(workflowId).path("stage").asText())) {
              return "TICKET";
            }
          }
        }
      }
    };
  }

  /**
   * The app's own view of accepting (its Micrometer percentiles, a decaying window of about the
   * last two minutes): the whole accept inside the app, and the Temporal start call within it. What
   * the caller saw beyond the first is HTTP and waiting for a thread.
   */
  private static Map<String, Double> serviceMs(AppProcess app) throws Exception {
    Map<String, Double> ms = new LinkedHashMap<>();
    for (String name : List.of("cs_accept_seconds", "cs_accept_temporal_start_seconds")) {
      for (String quantile : List.of("p50", "p99")) {
        var seconds =
            app.series(name, "quantile=\"" + (quantile.equals("p50") ? "0.5" : "0.99") + "\"");
        ms.put(
            name + " " + quantile,
            seconds.isPresent() ? round(seconds.getAsDouble() * 1000) : -1.0);
      }
    }
    return ms;
  }

  /** Jobs measured in a phase: twice as many side by side, so each kind gets as many as alone. */
  private static int measured(String phase) {
    return phase.equals("side") ? 2 * SIDE_MEASURED : MEASURED;
  }

  /** The first jobs after start, warm-up until the JIT settles, then the measured window. */
  private Phase phase(
      String name, Job job, long worker, long server, WorkflowClient client, Probe probe)
      throws Exception {
    AtomicInteger next = new AtomicInteger();
    System.out.printf("[bench] %s: first %d jobs after start%n", name, FIRST_JOBS);
    Window first = drive(job, next, FIRST_JOBS, Duration.ofMinutes(10), worker, server, probe);
    int warmup = 0;
    double compiles = first.compilationsPerSecond();
    while (warmup < WARMUP_MAX && compiles >= SETTLED_COMPILES_PER_SECOND) {
      Window batch = drive(job, next, WARMUP_BATCH, Duration.ofMinutes(10), worker, server, probe);
      warmup += batch.jobs();
      compiles = batch.compilationsPerSecond();
      System.out.printf(
          "[bench] %s: warm-up %d jobs, %.1f compilations/s, %.1f jobs/s%n",
          name, warmup, compiles, batch.perSecond());
    }
    List<String> ids = new CopyOnWriteArrayList<>();
    Window measured =
        drive(
            new Job() {
              @Override
              public String start(int i) throws Exception {
                String id = job.start(i);
                ids.add(id);
                return id;
              }

              @Override
              public String await(String workflowId) throws Exception {
                return job.await(workflowId);
              }
            },
            next,
            measured(name),
            Duration.ofMinutes(20),
            worker,
            server,
            probe);
    System.out.printf("[bench] %s: measured %s%n", name, measured);
    return new Phase(name, first, warmup, compiles, measured, histories(client, ids), Map.of());
  }

  /**
   * {@code count} jobs (or until {@code limit} passes) with {@link #CALLERS} callers; CPU of the
   * worker (app) and the server over the window, and the worker's JIT compilations.
   */
  private Window drive(
      Job job, AtomicInteger next, int count, Duration limit, long worker, long server, Probe probe)
      throws Exception {
    List<long[]> timings = Collections.synchronizedList(new ArrayList<>());
    Map<String, Integer> outcomes = new ConcurrentHashMap<>();
    AtomicInteger started = new AtomicInteger();
    long deadline = System.nanoTime() + limit.toNanos();
    double workerCpu = ProcessStats.cpuMillis(worker);
    double workerJitCpu = ProcessStats.compilerCpuMillis(worker);
    double benchCpu = ProcessStats.cpuMillis(ProcessHandle.current().pid());
    double serverCpu = ProcessStats.cpuMillis(server);
    long compiled = ProcessStats.compilations(worker);
    Map<String, Double> totals = probe.totals();
    long begin = System.nanoTime();
    List<Thread> callers = new ArrayList<>();
    for (int c = 0; c < CALLERS; c++) {
      Thread caller =
          new Thread(
              () -> {
                while (System.nanoTime() < deadline && started.getAndIncrement() < count) {
                  int i = next.getAndIncrement();
                  long t0 = System.nanoTime();
                  String outcome;
                  long accepted;
                  long kind = -1; // 0: a bare start, 1: a question's accept
                  try {
                    String id = job.start(i);
                    accepted = System.nanoTime();
                    kind = id.startsWith(BARE_PREFIX) ? 0 : 1;
                    outcome = job.await(id);
                  } catch (Exception e) {
                    accepted = System.nanoTime();
                    outcome = "error: " + e.getClass().getSimpleName();
                  }
                  timings.add(new long[] {t0, accepted, System.nanoTime(), kind});
                  outcomes.merge(outcome, 1, Integer::sum);
                }
              });
      caller.start();
      callers.add(caller);
    }
    for (Thread caller : callers) {
      caller.join();
    }
    double seconds = (System.nanoTime() - begin) / 1e9;
    double workerUsed = ProcessStats.cpuMillis(worker) - workerCpu;
    double workerJitUsed = ProcessStats.compilerCpuMillis(worker) - workerJitCpu;
    double benchUsed = ProcessStats.cpuMillis(ProcessHandle.current().pid()) - benchCpu;
    double serverUsed = ProcessStats.cpuMillis(server) - serverCpu;
    long compiledNow = ProcessStats.compilations(worker);
    Map<String, Double> totalsNow = probe.totals();
    int jobs = timings.size();
    Map<String, Double> perJob = new TreeMap<>();
    totalsNow.forEach(
        (key, now) ->
            perJob.put(key, round((now - totals.getOrDefault(key, 0.0)) / Math.max(1, jobs))));
    return new Window(
        jobs,
        round(seconds),
        round(jobs / seconds),
        percentileMs(timings, t -> t[1] - t[0], 0.50),
        percentileMs(timings, t -> t[1] - t[0], 0.99),
        percentileMs(timings, t -> t[2] - t[0], 0.50),
        percentileMs(timings, t -> t[2] - t[0], 0.99),
        round(workerUsed / Math.max(1, jobs)),
        round(workerJitUsed / Math.max(1, jobs)),
        round(serverUsed / Math.max(1, jobs)),
        round(benchUsed / Math.max(1, jobs)),
        compiled < 0 ? -1 : round((compiledNow - compiled) / seconds),
        new TreeMap<>(outcomes),
        acceptByKind(timings),
        perJob);
  }

  /** With bare starts and question accepts in one window: the p50 and p99 of each. */
  private static Map<String, Double> acceptByKind(List<long[]> timings) {
    Map<String, Double> byKind = new LinkedHashMap<>();
    List<long[]> bare;
    List<long[]> questions;
    synchronized (timings) {
      bare = timings.stream().filter(t -> t[3] == 0).toList();
      questions = timings.stream().filter(t -> t[3] == 1).toList();
    }
    if (!bare.isEmpty() && !questions.isEmpty()) {
      byKind.put("bareStartP50Ms", percentileMs(bare, t -> t[1] - t[0], 0.50));
      byKind.put("bareStartP99Ms", percentileMs(bare, t -> t[1] - t[0], 0.99));
      byKind.put("questionAcceptP50Ms", percentileMs(questions, t -> t[1] - t[0], 0.50));
      byKind.put("questionAcceptP99Ms", percentileMs(questions, t -> t[1] - t[0], 0.99));
    }
    return byKind;
  }

  private static Histories histories(WorkflowClient client, List<String> ids) {
    List<String> sample = ids.subList(Math.max(0, ids.size() - HISTORY_SAMPLE), ids.size());
    double[] sums = new double[8];
    for (String id : sample) {
      var events = client.fetchHistory(id).getEvents();
      sums[6] += actions(events);
      // what the server stores: the events as serialized (payloads sealed by the codec)
      sums[7] += events.stream().mapToLong(e -> e.getSerializedSize()).sum();
      for (var event : events) {
        sums[0]++;
        EventType type = event.getEventType();
        if (type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
          sums[1]++;
        } else if (type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
          sums[2]++;
        } else if (type == EventType.EVENT_TYPE_MARKER_RECORDED) {
          sums[3]++;
        } else if (type == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES) {
          sums[4]++;
        } else if (type == EventType.EVENT_TYPE_TIMER_STARTED) {
          sums[5]++;
        }
      }
    }
    double n = Math.max(1, sample.size());
    return new Histories(
        round(sums[0] / n),
        round(sums[1] / n),
        round(sums[2] / n),
        round(sums[3] / n),
        round(sums[4] / n),
        round(sums[5] / n),
        round(sums[6] / n),
        round(sums[7] / n));
  }

  /**
   * Temporal Cloud's billable actions in one history, by its published rules
   * (docs.temporal.io/cloud/actions, read 2026-12-06): a start (or a continue-as-new's new run),
   * each search-attribute upsert, each activity scheduled and each retry of one (its started
   * event's attempt minus 1), each timer, each signal, two per child workflow initiated, and all
   * markers (local activities, versions) of one workflow task as one. Queries, describes and
   * history reads are no actions; whatever a history does not show (heartbeats) is not counted.
   */
  static int actions(List<io.temporal.api.history.v1.HistoryEvent> events) {
    int actions = 0;
    java.util.Set<Long> markerTasks = new java.util.HashSet<>();
    for (var event : events) {
      switch (event.getEventType()) {
        case EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
            EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
            EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
            EVENT_TYPE_TIMER_STARTED,
            EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
            EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED ->
            actions++;
        case EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED -> actions += 2;
        case EVENT_TYPE_ACTIVITY_TASK_STARTED ->
            actions += Math.max(0, event.getActivityTaskStartedEventAttributes().getAttempt() - 1);
        case EVENT_TYPE_MARKER_RECORDED ->
            markerTasks.add(
                event.getMarkerRecordedEventAttributes().getWorkflowTaskCompletedEventId());
        default -> {}
      }
    }
    return actions + markerTasks.size();
  }

  /**
   * The bare phases a phase is compared with: the nearest before and the nearest after it (either
   * may be missing); a bare phase is compared with the first one, which shows the server's drift.
   */
  private static List<Phase> baselines(List<Phase> phases, int index) {
    if (phases.get(index).name().equals("bare")) {
      return phases.stream().filter(p -> p.name().equals("bare")).limit(1).toList();
    }
    List<Phase> around = new ArrayList<>();
    for (int i = index - 1; i >= 0; i--) {
      if (phases.get(i).name().equals("bare")) {
        around.add(phases.get(i));
        break;
      }
    }
    for (int i = index + 1; i < phases.size(); i++) {
      if (phases.get(i).name().equals("bare")) {
        around.add(phases.get(i));
        break;
      }
    }
    return around;
  }

  private static double meanOf(List<Phase> phases, java.util.function.ToDoubleFunction<Window> f) {
    return phases.stream()
        .mapToDouble(p -> f.applyAsDouble(p.measured()))
        .average()
        .orElse(Double.NaN);
  }

  private static List<Ratio> ratios(List<Phase> phases) {
    List<Ratio> ratios = new ArrayList<>();
    for (int i = 0; i < phases.size(); i++) {
      Window m = phases.get(i).measured();
      List<Phase> baselines = baselines(phases, i);
      ratios.add(
          new Ratio(
              phases.get(i).name(),
              baselines.stream().map(phases::indexOf).toList(),
              m.perSecond() / meanOf(baselines, Window::perSecond),
              m.acceptP99Ms() / meanOf(baselines, Window::acceptP99Ms)));
    }
    return ratios;
  }

  private static String table(List<Phase> phases, List<Ratio> ratios) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            "throughput, %d callers, %d measured jobs each, JVM %s, %d cores%n",
            CALLERS, MEASURED, LAUNCH, Runtime.getRuntime().availableProcessors()));
    out.append(
        String.format(
            "%-6s %9s %6s %9s %9s %7s %7s %9s %9s %7s %6s %6s %6s %8s%n",
            "phase",
            "done/s",
            "ratio",
            "acc p50",
            "acc p99",
            "p99 x",
            "events",
            "wf tasks",
            "upserts",
            "app ms",
            "srv ms",
            "cores",
            "jit/s",
            "warm-up"));
    for (int i = 0; i < phases.size(); i++) {
      Phase p = phases.get(i);
      Window m = p.measured();
      out.append(
          String.format(
              "%-6s %9.1f %6.2f %8.0fms %8.0fms %7.2f %7.1f %9.1f %9.1f %7.1f %6.1f %6.2f %6.1f %8d%n",
              p.name(),
              m.perSecond(),
              ratios.get(i).donePerSecond(),
              m.acceptP50Ms(),
              m.acceptP99Ms(),
              ratios.get(i).acceptP99(),
              p.histories().events(),
              p.histories().workflowTasks(),
              p.histories().searchAttributeUpserts(),
              m.workerCpuMsPerJob(),
              m.serverCpuMsPerJob(),
              // cores busy: app, server and this benchmark's callers together
              (m.workerCpuMsPerJob() + m.serverCpuMsPerJob() + m.benchCpuMsPerJob())
                  * m.perSecond()
                  / 1000,
              m.compilationsPerSecond(),
              p.warmupJobs()));
    }
    out.append(
        String.format(
            "first %d jobs after start (app CPU: all threads, of it JIT):%n", FIRST_JOBS));
    for (Phase p : phases) {
      Window f = p.firstJobs();
      Window m = p.measured();
      out.append(
          String.format(
              "%-6s %7.1f/s  app %6.1f ms/job (%.2fx steady %.1f), JIT %5.1f (steady %.1f)  server %5.1f"
                  + " ms/job  jit %6.1f/s%n",
              p.name(),
              f.perSecond(),
              f.workerCpuMsPerJob(),
              f.workerCpuMsPerJob() / Math.max(0.1, m.workerCpuMsPerJob()),
              m.workerCpuMsPerJob(),
              f.workerJitCpuMsPerJob(),
              m.workerJitCpuMsPerJob(),
              f.serverCpuMsPerJob(),
              f.compilationsPerSecond()));
    }
    for (Phase p : phases) {
      if (!p.serviceMs().isEmpty()) {
        out.append(
            String.format(
                "%-6s accept p50/p99 inside the app %.0f/%.0f ms, of it the Temporal start call"
                    + " %.0f/%.0f ms%n",
                p.name(),
                p.serviceMs().get("cs_accept_seconds p50"),
                p.serviceMs().get("cs_accept_seconds p99"),
                p.serviceMs().get("cs_accept_temporal_start_seconds p50"),
                p.serviceMs().get("cs_accept_temporal_start_seconds p99")));
      }
    }
    for (Phase p : phases) {
      Map<String, Double> k = p.measured().acceptByKind();
      if (!k.isEmpty()) {
        out.append(
            String.format(
                "%-6s bare starts and FAQ-level question accepts alternating in one window: start p50 %.0f"
                    + " p99 %.0f ms, accept p50 %.0f p99 %.0f ms: p99 %.2fx (target 1.25x)%n",
                p.name(),
                k.get("bareStartP50Ms"),
                k.get("bareStartP99Ms"),
                k.get("questionAcceptP50Ms"),
                k.get("questionAcceptP99Ms"),
                k.get("questionAcceptP99Ms") / k.get("bareStartP99Ms")));
      }
    }
    out.append(
        "per job (measured): Temporal Cloud actions (from histories), and the totals each phase probed:\n");
    for (Phase p : phases) {
      out.append(String.format("%-6s actions %.1f", p.name(), p.histories().actions()));
      p.measured()
          .perJob()
          .forEach((key, value) -> out.append(String.format("  %s %.2f", key, value)));
      out.append('\n');
    }
    out.append("outcomes (measured): ");
    for (Phase p : phases) {
      out.append(p.name()).append(' ').append(p.measured().outcomes()).append("  ");
    }
    return out.append('\n').toString();
  }

  /** The {@code p} percentile in milliseconds of a duration in nanoseconds of each timing. */
  private static double percentileMs(
      List<long[]> timings, java.util.function.ToLongFunction<long[]> nanos, double p) {
    List<Double> millis = new ArrayList<>();
    synchronized (timings) {
      for (long[] t : timings) {
        millis.add(nanos.applyAsLong(t) / 1e6);
      }
    }
    return percentile(millis, p);
  }

  /** Every phrasing of the English pack: questions that differ, as real traffic does. */
  private static List<String> questionTexts() throws IOException {
    List<String> texts = new ArrayList<>();
    for (String line :
        Files.readAllLines(Infra.repoRoot().resolve("faq-index/packs/banking77/entries.jsonl"))) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode entry = JSON.readTree(line);
      entry.path("phrasings").forEach(p -> texts.add(p.asText()));
    }
    Collections.shuffle(texts, new java.util.Random(42));
    return texts;
  }
}
