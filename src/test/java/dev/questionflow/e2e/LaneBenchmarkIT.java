package dev.questionflow.e2e;

import static dev.questionflow.e2e.BenchFigures.percentile;
import static dev.questionflow.e2e.BenchFigures.round;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.questionflow.e2e.JavaProcesses.FakeModel;
import dev.questionflow.e2e.JavaProcesses.FakeModel.ModelCall;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
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
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * {@code bin/bench lanes}: issue 15's lane promises, measured from outside the processes. The fake
 * model runs as a process of its own and meters requests with a provider-style token bucket (429
 * when empty); two app instances (two JVMs) serve one task queue; after a short warm-up through the
 * lane:
 *
 * <ol>
 *   <li><b>VIP burst</b>: 140 standard questions, then 10 VIP, into a lane of 5 calls/s (the
 *       model's bucket 5/s, burst 5): for each VIP, how many model calls arrived at the model
 *       between its acceptance (202) and its own call (target: every one at most 20);
 *   <li><b>accuracy</b>: a backlog of {@code bench.lanes.backlog} (default 640, so that over 300
 *       still wait once every question has entered the lane; the longest wait for the model raised
 *       from 60 to 180 s) single-priority questions; every 10th is polled about once a second on
 *       the instance that accepted it while it waits, every read timed. A sample's position is
 *       right when it is within max(2, 10 %) of the questions whose call reached the model after
 *       the sample and before its own (target: 90 % of samples), its ETA when within 25 % of the
 *       time from the sample to its answer (the call's arrival plus the model's latency; target: 80
 *       %); status reads p99 under 100 ms; and none of them a workflow query ({@code
 *       cs_status_reads_total{source="query"}} = 0).
 * </ol>
 *
 * <p>Also the model's most calls in any 1 s window and the 429s it sent (the lane keeps it inside
 * its quota). Printed and written to {@code e2e/target/bench/lanes.json} and {@code .txt}; the
 * targets are checked after everything is written (a benchmark reports every figure before it
 * fails). It needs the machine to itself, so the build skips it; the Maven profile {@code bench}
 * runs it.
 */
@EnabledIfSystemProperty(named = "flow.bench", matches = "true")
class LaneBenchmarkIT {

  /** The lane's rate and the model's token bucket: the issue's setting (model quota 5/s). */
  private static final double RATE = 5;

  private static final int BURST = 5;
  private static final int LATENCY_MS = 50;

  /** The app's default per-instance concurrency of the primary lane. */
  private static final int MAX_CONCURRENT = 5;

  private static final Duration MAX_WAIT = Duration.ofSeconds(180);

  private static final int WARM_UP = 30;
  private static final int STANDARD = 140;
  private static final int VIPS = 10;
  private static final int VIP_TARGET = 20;
  private static final int BACKLOG = Integer.getInteger("bench.lanes.backlog", 640);
  private static final int SAMPLE_EVERY = 10;
  private static final Duration POLL = Duration.ofSeconds(1);

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** The question number and the run tag in a question's text, as the model receives it. */
  private static final Pattern TEXT = Pattern.compile("#(\\d+) \\(([a-z]+-[0-9a-f]+)\\)");

  private static FakeModel model;
  private static AppProcess first;
  private static AppProcess second;
  private static String taskQueue;
  private static RedisClient redis;
  private static StatefulRedisConnection<String, String> ledger;

  @BeforeAll
  static void start() throws Exception {
    model =
        FakeModel.start(
            "bench-lanes-model",
            "--token-bucket",
            (int) RATE + ":" + BURST,
            "--latency-ms",
            String.valueOf(LATENCY_MS));
    taskQueue = Infra.uniqueTaskQueue("bench-lanes");
    Map<String, String> env =
        FlowControlIT.laneEnv(taskQueue, model.baseUrl(), RATE, MAX_CONCURRENT);
    // a back end that may assert the VIP tier (a caller key without it gets 403 for tier VIP)
    env.put("CALLER_API_KEYS", "e2e-backend:" + AppProcess.CALLER_KEY + ":VIP");
    // at 5 calls/s the 300th waits 60 s, beyond a customer's patience (10 s) and the SPEC's longest
    // wait for a model worker: both raised here so the backlog the promise speaks of can form (the
    // questions would otherwise be answered from the FAQ at once, issue 27)
    env.put("CS_FLOWCONTROL_MAXQUEUEWAIT", MAX_WAIT.toSeconds() + "s");
    env.put("PATIENCE_QUEUE", MAX_WAIT.toSeconds() + "s");
    env.put("PATIENCE_VIP_QUEUE", MAX_WAIT.toSeconds() + "s");
    // both at once: each start is mostly the JVM's own class loading and JIT
    CompletableFuture<AppProcess> one =
        AppProcess.starting("bench-lanes-1", env, AppProcess.TEST_JVM);
    CompletableFuture<AppProcess> two =
        AppProcess.starting("bench-lanes-2", env, AppProcess.TEST_JVM);
    first = one.join();
    second = two.join();
    redis = RedisClient.create(Infra.redisUrl());
    ledger = redis.connect();
  }

  @AfterAll
  static void stop() throws Exception {
    if (ledger != null) {
      ledger.close();
      redis.shutdown();
    }
    Infra.closeAll(first, second, model);
  }

  /** The primary lane's name: its task queue, also its ledger's key in Redis. */
  private static String lane() {
    return taskQueue + "-model-primary";
  }

  private static long waiting() {
    return ledger.sync().zcard("cs:lane:{" + lane() + "}:waiting");
  }

  /** One question asked: its number in its scenario, workflow ID, instance, when the 202 came. */
  record Asked(int n, String id, AppProcess app, long acceptedMicros) {}

  /**
   * Asks question {@code n} of {@code tag}; even numbers on the first instance, odd on the second.
   */
  private static Asked ask(String tag, int n, boolean vip) {
    AppProcess app = n % 2 == 0 ? first : second;
    try {
      String id =
          FlowControlIT.ask(
              app, tag + "-" + n, "m1", "Where is my card? #" + n + " (" + tag + ")", vip);
      return new Asked(n, id, app, BenchFigures.nowMicros());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Asks {@code count} questions (numbers from {@code from}) on 8 threads. */
  private static Map<Integer, Asked> ask(String tag, int from, int count, boolean vip) {
    Map<Integer, Asked> asked = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<CompletableFuture<?>> all = new ArrayList<>();
      for (int i = from; i < from + count; i++) {
        int n = i;
        all.add(CompletableFuture.runAsync(() -> asked.put(n, ask(tag, n, vip)), pool));
      }
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    } finally {
      pool.shutdown();
    }
    return asked;
  }

  /** The first answered (200) call of each question of {@code tag}, by question number. */
  private static Map<Integer, ModelCall> answeredCalls(List<ModelCall> calls, String tag) {
    Map<Integer, ModelCall> byNumber = new HashMap<>();
    for (ModelCall c : calls) {
      Matcher m = c.userMessage() == null ? null : TEXT.matcher(c.userMessage());
      if (c.status() == 200 && m != null && m.find() && m.group(2).equals(tag)) {
        byNumber.putIfAbsent(Integer.parseInt(m.group(1)), c);
      }
    }
    return byNumber;
  }

  /** Until every question of {@code tag} had its call answered, then until the lane is idle. */
  private static List<ModelCall> awaitServed(String tag, int count, Duration atMost) {
    try {
      await()
          .atMost(atMost)
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> answeredCalls(model.calls(), tag).size() >= count);
    } catch (ConditionTimeoutException e) {
      // the figures are still reported, over the questions served; the unserved are counted
      System.out.printf("[lanes] %s: not every question reached the model in %s%n", tag, atMost);
    }
    awaitIdleLane();
    try {
      return model.calls();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The ledger's line empty, then a second more: the lane's throttle and the model's bucket full
   * again, so each scenario starts from the same idle lane.
   */
  private static void awaitIdleLane() {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollDelay(Duration.ofSeconds(1))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> waiting() == 0);
    await().pollDelay(Duration.ofSeconds(1)).until(() -> true);
  }

  // ---- scenario a: VIP burst

  record VipBurst(
      int standard,
      int vips,
      List<Integer> callsBeforeEachVip,
      List<Double> secondsToEachVipCall,
      int worst,
      int standardServedAfterTheLastVip,
      double submitStandardSeconds) {}

  private static VipBurst vipBurst() {
    String tag = "vip-" + UUID.randomUUID().toString().substring(0, 6);
    long t0 = System.nanoTime();
    Map<Integer, Asked> asked = new HashMap<>(ask(tag, 0, STANDARD, false));
    double submitSeconds = (System.nanoTime() - t0) / 1e9;
    asked.putAll(ask(tag, STANDARD, VIPS, true));
    List<ModelCall> calls =
        awaitServed(tag, STANDARD + VIPS, Duration.ofSeconds((long) (STANDARD / RATE) + 120));
    Map<Integer, ModelCall> served = answeredCalls(calls, tag);
    List<Integer> before = new ArrayList<>();
    List<Double> seconds = new ArrayList<>();
    long lastVip = 0;
    for (int n = STANDARD; n < STANDARD + VIPS; n++) {
      ModelCall own = served.get(n);
      if (own == null) {
        before.add(Integer.MAX_VALUE); // never reached the model: fails the target
        seconds.add(null);
        continue;
      }
      long accepted = asked.get(n).acceptedMicros();
      lastVip = Math.max(lastVip, own.sequence());
      seconds.add(round((own.epochMicros() - accepted) / 1e6));
      // every answered call of this run that reached the model after the VIP's 202, before its own
      before.add(
          (int)
              served.values().stream()
                  .filter(c -> c.epochMicros() > accepted && c.sequence() < own.sequence())
                  .count());
    }
    long lastVipSequence = lastVip;
    int after =
        (int)
            served.entrySet().stream()
                .filter(e -> e.getKey() < STANDARD && e.getValue().sequence() > lastVipSequence)
                .count();
    return new VipBurst(
        STANDARD,
        VIPS,
        before,
        seconds,
        Collections.max(before),
        after,
        Math.round(submitSeconds * 10) / 10.0);
  }

  // ---- scenario b: positions, ETAs and status reads under a backlog

  /** One timed status read of question {@code n} (epoch microseconds). */
  record Read(
      int n, long startMicros, long endMicros, String stage, Integer position, Integer eta) {
    long atMicros() {
      return (startMicros + endMicros) / 2;
    }

    double millis() {
      return (endMicros - startMicros) / 1000.0;
    }
  }

  record Accuracy(
      int questions,
      long peakWaiting,
      int sampledQuestions,
      int readCount,
      int samples,
      int samplesOfQuestionsNeverServed,
      int questionsServed,
      double positionsOkPercent,
      double meanPositionMinusServed,
      int positionsAbove,
      int positionsBelow,
      int etaSamples,
      double etasOkPercent,
      double medianEtaOverActual,
      double etasOkPercentActualAtLeast5s,
      double submitSeconds,
      double intakeSeconds,
      Reads allReads,
      Reads intakeReads,
      Reads backlogReads,
      Reads readsWhile300Wait) {}

  /**
   * Status read times (ms) of a stretch, and how many questions waited in the lane meanwhile.
   *
   * @param waitingMin fewest waiting during these reads, @param waitingMax most
   */
  record Reads(int count, double p50, double p99, double max, long waitingMin, long waitingMax) {
    static Reads of(List<double[]> millisAndWaiting) {
      List<Double> millis = millisAndWaiting.stream().map(r -> r[0]).toList();
      return new Reads(
          millis.size(),
          percentile(millis, 0.50),
          percentile(millis, 0.99),
          percentile(millis, 1.0),
          (long) millisAndWaiting.stream().mapToDouble(r -> r[1]).min().orElse(0),
          (long) millisAndWaiting.stream().mapToDouble(r -> r[1]).max().orElse(0));
    }

    @Override
    public String toString() {
      return String.format(
          "p50 %.1f, p99 %.1f, max %.1f (%d reads, %d-%d waiting)",
          p50, p99, max, count, waitingMin, waitingMax);
    }
  }

  private static Accuracy accuracy() throws Exception {
    String tag = "acc-" + UUID.randomUUID().toString().substring(0, 6);
    List<Read> reads = Collections.synchronizedList(new ArrayList<>());
    ScheduledExecutorService pollers = Executors.newScheduledThreadPool(8);
    AtomicLong peak = new AtomicLong();
    List<long[]> backlog = Collections.synchronizedList(new ArrayList<>());
    pollers.scheduleAtFixedRate(
        () -> {
          long w = waiting();
          peak.accumulateAndGet(w, Math::max);
          backlog.add(new long[] {BenchFigures.nowMicros(), w});
        },
        0,
        200,
        TimeUnit.MILLISECONDS);
    Map<Integer, CompletableFuture<Void>> done = new ConcurrentHashMap<>();
    // the sampled questions are polled from their acceptance on, as a chat back end would
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<CompletableFuture<?>> submissions = new ArrayList<>();
    long started = BenchFigures.nowMicros();
    for (int i = 0; i < BACKLOG; i++) {
      int n = i;
      submissions.add(
          CompletableFuture.runAsync(
              () -> {
                Asked a = ask(tag, n, false);
                if (n % SAMPLE_EVERY == 0) {
                  CompletableFuture<Void> finished = new CompletableFuture<>();
                  done.put(n, finished);
                  long offset = Math.floorMod(n * 7919L, POLL.toMillis());
                  pollers.schedule(() -> poll(a, reads, finished, pollers), offset, MILLIS);
                }
              },
              pool));
    }
    CompletableFuture.allOf(submissions.toArray(CompletableFuture[]::new)).join();
    long submitted = BenchFigures.nowMicros();
    pool.shutdown();
    List<ModelCall> calls =
        awaitServed(tag, BACKLOG, Duration.ofSeconds((long) (BACKLOG / RATE) + 120));
    try {
      CompletableFuture.allOf(done.values().toArray(CompletableFuture[]::new))
          .get(60, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      System.out.printf("[lanes] not every sampled question was polled to its end: %s%n", e);
    }
    pollers.shutdownNow();

    Path readLog = Infra.workDir().resolve("lane-benchmark-reads.tsv");
    Map<Integer, ModelCall> served = answeredCalls(calls, tag);
    long[] callTimes =
        served.values().stream().mapToLong(ModelCall::epochMicros).sorted().toArray();
    int samples = 0;
    int unserved = 0;
    int positionsOk = 0;
    int above = 0;
    int below = 0;
    long signed = 0;
    int etaSamples = 0;
    int etasOk = 0;
    int longEtas = 0;
    int longEtasOk = 0;
    List<Double> etaRatios = new ArrayList<>();
    // the intake ends when every question entered the lane or was served: until then the status
    // reads share two cores with hundreds of workflows starting (that cost is bin/bench
    // throughput's)
    long intakeDone = Long.MAX_VALUE;
    synchronized (backlog) {
      for (long[] b : backlog) {
        if (b[1] + countBetween(callTimes, 0, b[0]) >= BACKLOG - 2) {
          intakeDone = b[0];
          break;
        }
      }
    }
    List<double[]> readMillis = new ArrayList<>();
    List<double[]> readMillisWhile300 = new ArrayList<>();
    List<double[]> readMillisIntake = new ArrayList<>();
    List<double[]> readMillisBacklog = new ArrayList<>();
    // every read, for a closer look at what the figures summarise
    StringBuilder tsv =
        new StringBuilder("question\tstartMicros\tms\tstage\tposition\teta\twaiting\n");
    List<Read> all;
    synchronized (reads) {
      all = List.copyOf(reads);
    }
    for (Read r : all) {
      long waitingThen = waitingAt(backlog, r.startMicros());
      double[] read = {r.millis(), waitingThen};
      readMillis.add(read);
      (r.startMicros() < intakeDone ? readMillisIntake : readMillisBacklog).add(read);
      tsv.append(
          String.format(
              "%d\t%d\t%.1f\t%s\t%s\t%s\t%d%n",
              r.n(), r.startMicros(), r.millis(), r.stage(), r.position(), r.eta(), waitingThen));
      if (waitingThen >= 300 && r.startMicros() >= intakeDone) {
        readMillisWhile300.add(read);
      }
      if (r.position() == null) {
        continue;
      }
      ModelCall own = served.get(r.n());
      if (own == null) {
        unserved++;
        continue;
      }
      // served in between: answered calls of this run after the sample, before its own (first) call
      long between = countBetween(callTimes, r.atMicros(), own.epochMicros());
      samples++;
      long error = r.position() - between;
      signed += error;
      above += error > 0 ? 1 : 0;
      below += error < 0 ? 1 : 0;
      if (Math.abs(error) <= Math.max(2, Math.ceil(0.1 * between))) {
        positionsOk++;
      }
      if (r.eta() != null) {
        double actual = (own.epochMicros() + own.delayMillis() * 1000 - r.atMicros()) / 1e6;
        if (actual > 0) {
          etaSamples++;
          etaRatios.add(r.eta() / actual);
          boolean ok = Math.abs(r.eta() - actual) <= 0.25 * actual;
          etasOk += ok ? 1 : 0;
          if (actual >= 5) {
            longEtas++;
            longEtasOk += ok ? 1 : 0;
          }
        }
      }
    }
    Files.writeString(readLog, tsv);
    System.out.printf("[lanes] status reads written to %s%n", readLog);
    Collections.sort(etaRatios);
    return new Accuracy(
        BACKLOG,
        peak.get(),
        done.size(),
        all.size(),
        samples,
        unserved,
        served.size(),
        percent(positionsOk, samples),
        samples == 0 ? 0 : round((double) signed / samples),
        above,
        below,
        etaSamples,
        percent(etasOk, etaSamples),
        etaRatios.isEmpty() ? 0 : round(etaRatios.get(etaRatios.size() / 2)),
        percent(longEtasOk, longEtas),
        round((submitted - started) / 1e6),
        intakeDone == Long.MAX_VALUE ? -1 : round((intakeDone - started) / 1e6),
        Reads.of(readMillis),
        Reads.of(readMillisIntake),
        Reads.of(readMillisBacklog),
        Reads.of(readMillisWhile300));
  }

  private static final TimeUnit MILLIS = TimeUnit.MILLISECONDS;

  /**
   * One timed status read of {@code a} on the instance that accepted it, then the next one {@link
   * #POLL} later, until it is answered.
   */
  private static void poll(
      Asked a, List<Read> reads, CompletableFuture<Void> finished, ScheduledExecutorService at) {
    try {
      long start = BenchFigures.nowMicros();
      HttpResponse<String> response = a.app().get("/api/v1/questions/" + a.id());
      long end = BenchFigures.nowMicros();
      if (response.statusCode() != 200) {
        throw new IllegalStateException(response.statusCode() + " " + response.body());
      }
      JsonNode s = JSON.readTree(response.body());
      String stage = s.path("stage").asText();
      reads.add(
          new Read(
              a.n(),
              start,
              end,
              stage,
              s.path("queuePosition").isNumber() ? s.path("queuePosition").asInt() : null,
              s.path("etaSeconds").isNumber() ? s.path("etaSeconds").asInt() : null));
      if (List.of("ANSWERED", "TICKETED", "FAILED").contains(stage)) {
        finished.complete(null);
        return;
      }
      at.schedule(() -> poll(a, reads, finished, at), POLL.toMillis(), MILLIS);
    } catch (Exception e) {
      finished.completeExceptionally(e);
    }
  }

  /** The ledger's line length at {@code micros}, from the 200 ms samples (the last before it). */
  private static long waitingAt(List<long[]> backlog, long micros) {
    long w = 0;
    synchronized (backlog) {
      for (long[] b : backlog) {
        if (b[0] > micros) {
          break;
        }
        w = b[1];
      }
    }
    return w;
  }

  private static long countBetween(long[] sorted, long afterExclusive, long beforeExclusive) {
    long count = 0;
    for (long t : sorted) {
      if (t > afterExclusive && t < beforeExclusive) {
        count++;
      }
    }
    return count;
  }

  // ---- the model's side and the apps' counters

  record Model(
      int calls,
      int maxAnsweredIn1s,
      int maxCallsIn1s,
      int oneSecondWindowsAboveTheRate,
      long rateLimited,
      String laneRateAtEnd) {}

  private static Model modelSide() throws Exception {
    List<ModelCall> calls = model.calls();
    return new Model(
        calls.size(),
        maxIn1s(calls.stream().filter(c -> c.status() == 200).toList()),
        maxIn1s(calls),
        windowsAbove(calls, RATE),
        calls.stream().filter(c -> c.status() == 429).count(),
        ledger.sync().get("cs:lane:{" + lane() + "}:rate"));
  }

  /** The most calls whose arrivals fall in any window [t, t + 1 s). */
  static int maxIn1s(List<ModelCall> calls) {
    long[] t = calls.stream().mapToLong(ModelCall::epochMicros).sorted().toArray();
    int best = 0;
    for (int lo = 0, hi = 0; hi < t.length; hi++) {
      while (t[hi] - t[lo] >= 1_000_000) {
        lo++;
      }
      best = Math.max(best, hi - lo + 1);
    }
    return best;
  }

  /** How many windows [call, call + 1 s) hold more than {@code rate} calls. */
  static int windowsAbove(List<ModelCall> calls, double rate) {
    long[] t = calls.stream().mapToLong(ModelCall::epochMicros).sorted().toArray();
    int over = 0;
    for (int lo = 0, hi = 0; lo < t.length; lo++) {
      hi = Math.max(hi, lo);
      while (hi < t.length && t[hi] - t[lo] < 1_000_000) {
        hi++;
      }
      over += hi - lo > rate ? 1 : 0;
    }
    return over;
  }

  private static final Pattern STATUS_READS =
      Pattern.compile("cs_status_reads_total\\{[^}]*source=\"(\\w+)\"[^}]*} ([0-9.eE+]+)");

  /** {@code cs_status_reads_total} by source, summed over both instances. */
  private static Map<String, Long> statusReadsBySource() throws Exception {
    Map<String, Long> bySource = new TreeMap<>();
    for (AppProcess app : List.of(first, second)) {
      Matcher m = STATUS_READS.matcher(app.get("/actuator/prometheus").body());
      while (m.find()) {
        bySource.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
      }
    }
    return bySource;
  }

  @Test
  void vipsOvertakeABurstAndWaitingQuestionsSeeTheirPositionAndEta() throws Exception {
    String warm = "warm-" + UUID.randomUUID().toString().substring(0, 6);
    ask(warm, 0, WARM_UP, false);
    awaitServed(warm, WARM_UP, Duration.ofSeconds((long) (WARM_UP / RATE) + 120));
    System.out.printf("[lanes] warm-up: %d questions through the lane%n", WARM_UP);

    VipBurst vip = vipBurst();
    System.out.printf("[lanes] %s%n", vip);
    Accuracy accuracy = accuracy();
    System.out.printf("[lanes] %s%n", accuracy);
    Map<String, Long> sources = statusReadsBySource();
    Model modelSide = modelSide();

    String table = table(vip, accuracy, sources, modelSide);
    System.out.println(table);
    Path dir = Infra.repoRoot().resolve("e2e/target/bench");
    Files.createDirectories(dir);
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("at", Instant.now().toString());
    report.put("instances", 2);
    report.put("laneRate", RATE);
    report.put("modelTokenBucket", Map.of("rate", RATE, "burst", BURST));
    report.put("modelLatencyMs", LATENCY_MS);
    report.put("maxConcurrentPerInstance", MAX_CONCURRENT);
    report.put("maxWaitForTheModelSeconds", MAX_WAIT.toSeconds());
    report.put("vipBurst", vip);
    report.put("accuracy", accuracy);
    report.put("statusReadsBySource", sources);
    report.put("model", modelSide);
    Files.writeString(dir.resolve("lanes.json"), JSON.writeValueAsString(report));
    Files.writeString(dir.resolve("lanes.txt"), table);

    SoftAssertions softly = new SoftAssertions();
    softly
        .assertThat(vip.worst())
        .as("calls between a VIP's acceptance and its call")
        .isLessThanOrEqualTo(VIP_TARGET);
    softly
        .assertThat(accuracy.positionsOkPercent())
        .as("positions within max(2, 10 %%)")
        .isGreaterThanOrEqualTo(90.0);
    softly
        .assertThat(accuracy.etasOkPercent())
        .as("ETAs within 25 %%")
        .isGreaterThanOrEqualTo(80.0);
    softly
        .assertThat(accuracy.backlogReads().p99())
        .as("status read p99 ms while the backlog waits")
        .isLessThan(100.0);
    softly
        .assertThat(accuracy.readsWhile300Wait().count())
        .as("status reads while 300 or more wait, after the intake")
        .isPositive();
    softly
        .assertThat(accuracy.readsWhile300Wait().p99())
        .as("status read p99 ms while 300 or more wait")
        .isLessThan(100.0);
    softly
        .assertThat(accuracy.questionsServed())
        .as("questions of the backlog that reached the model")
        .isEqualTo(accuracy.questions());
    softly
        .assertThat(accuracy.peakWaiting())
        .as("questions waiting at the peak")
        .isGreaterThanOrEqualTo(300);
    softly.assertThat(sources.getOrDefault("query", 0L)).as("status reads by query").isZero();
    softly
        .assertThat(sources.getOrDefault("ledger", 0L))
        .as("status reads from the ledger")
        .isPositive();
    softly.assertAll();
  }

  private static String table(VipBurst vip, Accuracy a, Map<String, Long> sources, Model m) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            "lanes: 2 app instances, lane %.0f/s, model token bucket %.0f/s burst %d, latency %d ms,"
                + " %d concurrent calls per instance, a question waits up to %d s for the model%n",
            RATE, RATE, BURST, LATENCY_MS, MAX_CONCURRENT, MAX_WAIT.toSeconds()));
    out.append(
        String.format(
            "VIP burst (%d standard, then %d VIP; submitted in %.1f s):%n",
            vip.standard(), vip.vips(), vip.submitStandardSeconds()));
    out.append(
        String.format(
            "  model calls between a VIP's 202 and its call  max %d (target <= %d)  each %s%n",
            vip.worst(), VIP_TARGET, vip.callsBeforeEachVip()));
    out.append(
        String.format(
            "  seconds from a VIP's 202 to its call           %s%n", vip.secondsToEachVipCall()));
    out.append(
        String.format(
            "  standard questions served after the last VIP  %d of %d%n",
            vip.standardServedAfterTheLastVip(), vip.standard()));
    out.append(
        String.format(
            "accuracy (%d questions, %d reached the model, peak %d waiting; %d samples with a"
                + " position of %d questions, %d reads):%n",
            a.questions(),
            a.questionsServed(),
            a.peakWaiting(),
            a.samples(),
            a.sampledQuestions(),
            a.readCount()));
    out.append(
        String.format(
            "  positions within max(2, 10 %%)   %5.1f %% (target >= 90 %%)  mean position - served"
                + " %+.1f, %d above, %d below%n",
            a.positionsOkPercent(),
            a.meanPositionMinusServed(),
            a.positionsAbove(),
            a.positionsBelow()));
    out.append(
        String.format(
            "  ETAs within 25 %%                %5.1f %% (target >= 80 %%)  median ETA/actual %.2f;"
                + " %.1f %% where actual >= 5 s%n",
            a.etasOkPercent(), a.medianEtaOverActual(), a.etasOkPercentActualAtLeast5s()));
    out.append(
        String.format(
            "  status read ms, backlog         %s (target p99 < 100)%n"
                + "    of it while >= 300 waited   %s%n"
                + "    intake (%d submitted in %.1f s, all in the lane after %.1f s) %s%n"
                + "    all                         %s%n",
            a.backlogReads(),
            a.readsWhile300Wait(),
            a.questions(),
            a.submitSeconds(),
            a.intakeSeconds(),
            a.intakeReads(),
            a.allReads()));
    out.append(
        String.format(
            "  cs_status_reads_total by source %s (target query = 0, ledger > 0)%n", sources));
    out.append(
        String.format(
            "model: %d calls; max %d answered (%d in all) in any 1 s window, %d windows above %.0f;"
                + " %d answered 429; lane rate in Redis at the end %s%n",
            m.calls(),
            m.maxAnsweredIn1s(),
            m.maxCallsIn1s(),
            m.oneSecondWindowsAboveTheRate(),
            RATE,
            m.rateLimited(),
            m.laneRateAtEnd() == null ? "(configured)" : m.laneRateAtEnd()));
    return out.toString();
  }

  private static double percent(int part, int whole) {
    return whole == 0 ? 0 : round(100.0 * part / whole);
  }
}
