package dev.questionflow.e2e;

import static dev.questionflow.e2e.BenchFigures.percentile;
import static dev.questionflow.e2e.BenchFigures.round;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.questionflow.e2e.JavaProcesses.FakeModel;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * {@code bin/bench streams}: what status streams cost Temporal, issue 30 item 2. The fake model
 * runs as a process of its own with a scripted latency; one app instance of role {@code api} takes
 * the questions and serves the streams, one of role {@code worker} runs the workflows, so the api
 * instance's {@code cs_temporal_reads_total} is what status reads and streams cost (no worker's
 * history fetch is in it). For 1, 5 and 25 streams per question in turn: {@code bench.streams.
 * questions} (200) questions that need the model, asked from 12 callers (each under the per-caller
 * stream cap), into a lane slow enough that a line forms; each question's streams open right after
 * its 202 and are read until the server ends them. Figures: Temporal reads per question on the api
 * instance (target: the same at every stream count, at most 3), Redis commands per question (INFO
 * commandstats, both instances together), status events received, and for events that carry their
 * publication time ({@code : published <epoch ms>} comment) p50/p99 from publication to receipt
 * (target p99 at most 500 ms). Printed and written to {@code e2e/target/bench/streams.json} and
 * {@code .txt}; targets are checked after. {@code -Dbench.streams.counts=1,5} picks the stream
 * counts.
 */
@EnabledIfSystemProperty(named = "flow.bench", matches = "true")
class StreamBenchmarkIT {

  private static final int QUESTIONS = Integer.getInteger("bench.streams.questions", 200);
  private static final List<Integer> STREAM_COUNTS =
      Arrays.stream(System.getProperty("bench.streams.counts", "1,5,25").split(","))
          .map(String::strip)
          .map(Integer::valueOf)
          .toList();

  /** A model call takes this long; the lane serves this many a second: a line forms. */
  private static final int LATENCY_MS = 2000;

  private static final int RATE = 5;

  /**
   * Questions asked per second, 0: all at once (with every stream opened right after its question:
   * a burst that keeps a 2-core machine fully busy for its whole intake). {@code
   * -Dbench.streams.ask-rate=5} asks them at the lane's rate instead, as a steady line forms.
   */
  private static final double ASK_RATE =
      Double.parseDouble(System.getProperty("bench.streams.ask-rate", "0"));

  private static final int MAX_CONCURRENT = 12;
  private static final Duration MAX_WAIT = Duration.ofSeconds(180);

  /**
   * The api instance's JVM: 5,000 open streams (each a connection with Tomcat's buffers) do not fit
   * the tests' 512 MB heap ({@code -Dbench.streams.jvm} changes it).
   */
  private static final List<String> API_JVM =
      List.of(System.getProperty("bench.streams.jvm", "-Xmx1g -XX:TieredStopAtLevel=1").split(" "));

  /** Callers: 200 questions x 25 streams spread over them stay under 500 streams per caller. */
  private static final int CALLERS = 12;

  private static final double READS_PER_QUESTION_TARGET = 3;
  private static final double PUBLICATION_P99_TARGET_MS = 500;

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final Pattern PUBLISHED = Pattern.compile("^: ?published (\\d+)");
  private static final Pattern STAGE = Pattern.compile("\"stage\":\"(\\w+)\"");
  private static final Pattern POSITION = Pattern.compile("\"queuePosition\":(\\d+)");

  private static FakeModel model;
  private static AppProcess api;
  private static AppProcess worker;
  private static RedisClient redis;
  private static StatefulRedisConnection<String, String> redisConnection;
  private static HttpClient http;
  private static ExecutorService streamThreads;

  private static String callerKey(int caller) {
    return "bench-streams-caller-key-" + caller + "-0123456789abcdef";
  }

  @BeforeAll
  static void start() throws Exception {
    model = FakeModel.start("bench-streams-model", "--latency-ms", String.valueOf(LATENCY_MS));
    String taskQueue = Infra.uniqueTaskQueue("bench-streams");
    Map<String, String> env =
        FlowControlIT.laneEnv(taskQueue, model.baseUrl(), RATE, MAX_CONCURRENT);
    List<String> callers = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      callers.add("bench-streams-" + i + ":" + callerKey(i));
    }
    env.put("CALLER_API_KEYS", String.join(",", callers));
    // every stream of the largest round open at once on one instance
    env.put("CS_API_SSEMAXTOTAL", String.valueOf(QUESTIONS * 25 + 500));
    // every question waits for the model (as in bin/bench lanes): patience above the line's length
    env.put("CS_FLOWCONTROL_MAXQUEUEWAIT", MAX_WAIT.toSeconds() + "s");
    env.put("PATIENCE_QUEUE", MAX_WAIT.toSeconds() + "s");
    env.put("PATIENCE_VIP_QUEUE", MAX_WAIT.toSeconds() + "s");
    env.put("LLM_TIMEOUT", "30s");
    Map<String, String> apiEnv = new LinkedHashMap<>(env);
    apiEnv.put("CS_ROLE", "api");
    Map<String, String> workerEnv = new LinkedHashMap<>(env);
    workerEnv.put("CS_ROLE", "worker");
    CompletableFuture<AppProcess> one = AppProcess.starting("bench-streams-api", apiEnv, API_JVM);
    CompletableFuture<AppProcess> two =
        AppProcess.starting("bench-streams-worker", workerEnv, AppProcess.TEST_JVM);
    api = one.join();
    worker = two.join();
    redis = RedisClient.create(Infra.redisUrl());
    redisConnection = redis.connect();
    streamThreads = Executors.newFixedThreadPool(4, named("bench-stream"));
    http = HttpClient.newBuilder().executor(streamThreads).build();
  }

  @AfterAll
  static void stop() throws Exception {
    if (redisConnection != null) {
      redisConnection.close();
      redis.shutdown();
    }
    if (streamThreads != null) {
      streamThreads.shutdownNow();
    }
    Infra.closeAll(api, worker, model);
  }

  /** One status event a stream received: when, its stage and position, when it was published. */
  record Received(long receivedMillis, Long publishedMillis, String stage, Integer position) {}

  /** One stream: its events, done when the server ended it. */
  static final class Stream implements Flow.Subscriber<String> {
    final List<Received> events = Collections.synchronizedList(new ArrayList<>());
    final CompletableFuture<Void> done = new CompletableFuture<>();

    /** When it was requested, and when its response began (the server listens from then on). */
    final long requestedMillis = System.currentTimeMillis();

    volatile long openedMillis;
    private Long published;
    private String event;

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      openedMillis = System.currentTimeMillis();
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(String line) {
      Matcher m = PUBLISHED.matcher(line);
      if (m.find()) {
        published = Long.parseLong(m.group(1));
      } else if (line.startsWith("event:")) {
        event = line.substring(6).strip();
      } else if (line.startsWith("data:") && "status".equals(event)) {
        // two fields by pattern, not a JSON parse: thousands of streams share the test's cores
        Matcher stage = STAGE.matcher(line);
        Matcher position = POSITION.matcher(line);
        events.add(
            new Received(
                System.currentTimeMillis(),
                published,
                stage.find() ? stage.group(1) : "",
                position.find() ? Integer.valueOf(position.group(1)) : null));
      } else if (line.isEmpty()) {
        published = null;
        event = null;
      }
    }

    @Override
    public void onError(Throwable throwable) {
      done.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
      done.complete(null);
    }
  }

  private static Stream open(String workflowId, int caller) {
    Stream stream = new Stream();
    http.sendAsync(
            HttpRequest.newBuilder(api.uri("/api/v1/questions/" + workflowId + "/events"))
                .timeout(Duration.ofMinutes(10))
                .header("Accept", "text/event-stream")
                .header("Authorization", "Bearer " + callerKey(caller))
                .build(),
            HttpResponse.BodyHandlers.fromLineSubscriber(stream))
        .whenComplete(
            (response, error) -> {
              if (error != null) {
                stream.done.completeExceptionally(error);
              } else if (response.statusCode() != 200) {
                stream.done.completeExceptionally(
                    new IllegalStateException("stream answered " + response.statusCode()));
              }
            });
    return stream;
  }

  record Round(
      int streamsPerQuestion,
      int questions,
      int streams,
      int streamsFailed,
      double seconds,
      Map<String, Long> temporalReadsByMethod,
      double temporalReadsPerQuestion,
      double redisCommandsPerQuestion,
      Map<String, Long> redisTopCommands,
      int statusEvents,
      int waitingEventsWithAPosition,
      int answeredStreams,
      int eventsWithPublicationTime,
      Double publicationToReceiptP50Ms,
      Double publicationToReceiptP99Ms,
      Double publicationToReceiptMaxMs,
      Double stageChangesP99Ms,
      Double placesP99Ms,
      Double catchUpP99Ms,
      double intakeSeconds,
      double intakeMachineBusyPercent,
      Double duringIntakeP99Ms,
      Double afterIntakeP99Ms,
      Double openP50Ms,
      Double openP99Ms,
      Cpu intakeCpu,
      Cpu cpu) {}

  /**
   * CPU seconds of each process during a round, the machine's busy share of its cores, and the api
   * instance's CPU by thread group: where a round's time went on this machine.
   */
  record Cpu(
      double api,
      double worker,
      double client,
      double temporal,
      double redis,
      double model,
      double machineBusyPercent,
      int cores,
      Map<String, Double> apiThreads,
      Map<String, Double> clientThreads) {}

  private static java.util.concurrent.ThreadFactory named(String prefix) {
    java.util.concurrent.atomic.AtomicInteger count =
        new java.util.concurrent.atomic.AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** The benchmark client's threads by group: is its own reading what delays a receipt? */
  private static final Map<String, java.util.function.Predicate<String>> CLIENT_THREADS =
      Map.of(
          "http client selector", name -> name.startsWith("HttpClient"),
          "stream readers", name -> name.startsWith("bench-stream"),
          "askers", name -> name.startsWith("bench-asker"),
          "gc", name -> name.startsWith("GC ") || name.startsWith("G1 "));

  /** The api instance's threads by group (kernel names, cut to 15 characters). */
  private static final Map<String, java.util.function.Predicate<String>> API_THREADS =
      apiThreadGroups();

  private static Map<String, java.util.function.Predicate<String>> apiThreadGroups() {
    Map<String, java.util.function.Predicate<String>> groups = new LinkedHashMap<>();
    groups.put("sse senders", name -> name.startsWith("sse-status-send"));
    groups.put("change senders", name -> name.startsWith("sse-change-send"));
    groups.put("sse pollers", name -> name.startsWith("sse-status-poll"));
    groups.put("status hub", name -> name.startsWith("status-hub"));
    groups.put(
        "status subscriber",
        name -> name.startsWith("status-subscri") || name.startsWith("lettuce"));
    groups.put("http (tomcat)", name -> name.startsWith("http-nio") || name.startsWith("tomcat"));
    groups.put("jit", name -> name.contains("Compiler"));
    groups.put("gc", name -> name.startsWith("GC ") || name.startsWith("G1 "));
    return groups;
  }

  /** CPU milliseconds so far of everything a round measures, and the machine's busy/total ticks. */
  private static Map<String, Double> cpuNow() {
    Map<String, Double> now = new LinkedHashMap<>();
    now.put("api", ProcessStats.cpuMillis(api.pid()));
    now.put("worker", ProcessStats.cpuMillis(worker.pid()));
    now.put("client", ProcessStats.cpuMillis(ProcessHandle.current().pid()));
    now.put(
        "temporal",
        ProcessStats.find(
                "temporal", "start-dev", "--port " + Infra.temporalAddress().split(":")[1])
            .stream()
            .mapToDouble(ProcessStats::cpuMillis)
            .sum());
    now.put(
        "redis",
        ProcessStats.find("redis-server").stream().mapToDouble(ProcessStats::cpuMillis).sum());
    now.put("model", ProcessStats.cpuMillis(model.pid()));
    API_THREADS.forEach(
        (group, named) -> now.put("api:" + group, ProcessStats.threadCpuMillis(api.pid(), named)));
    long self = ProcessHandle.current().pid();
    CLIENT_THREADS.forEach(
        (group, named) -> now.put("client:" + group, ProcessStats.threadCpuMillis(self, named)));
    try {
      String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      double total = 0;
      for (int i = 1; i < cpu.length; i++) {
        total += Double.parseDouble(cpu[i]);
      }
      // idle, iowait, and niced processes (another session's nice -n 19 job yields to this one)
      double idle =
          Double.parseDouble(cpu[4]) + Double.parseDouble(cpu[5]) + Double.parseDouble(cpu[2]);
      now.put("machine:total", total);
      now.put("machine:busy", total - idle);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    return now;
  }

  private static Cpu cpuBetween(Map<String, Double> before, Map<String, Double> after) {
    java.util.function.Function<String, Double> seconds =
        key -> round((after.get(key) - before.get(key)) / 1000);
    Map<String, Double> threads = new LinkedHashMap<>();
    API_THREADS.keySet().forEach(group -> threads.put(group, seconds.apply("api:" + group)));
    Map<String, Double> clientThreads = new java.util.TreeMap<>();
    CLIENT_THREADS
        .keySet()
        .forEach(group -> clientThreads.put(group, seconds.apply("client:" + group)));
    double total = after.get("machine:total") - before.get("machine:total");
    double busy = after.get("machine:busy") - before.get("machine:busy");
    return new Cpu(
        seconds.apply("api"),
        seconds.apply("worker"),
        seconds.apply("client"),
        seconds.apply("temporal"),
        seconds.apply("redis"),
        seconds.apply("model"),
        round(100 * busy / total),
        Runtime.getRuntime().availableProcessors(),
        threads,
        clientThreads);
  }

  private static final Pattern READS =
      Pattern.compile("(?m)^cs_temporal_reads_total\\{[^}]*method=\"(\\w+)\"[^}]*} ([0-9.eE+]+)$");

  private static Map<String, Long> temporalReads() throws Exception {
    Map<String, Long> byMethod = new java.util.TreeMap<>();
    Matcher m = READS.matcher(api.get("/actuator/prometheus").body());
    while (m.find()) {
      byMethod.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
    }
    return byMethod;
  }

  private static final Pattern CALLS = Pattern.compile("(?m)^cmdstat_([^:]+):calls=(\\d+)");

  /** The commands Redis served so far by name (INFO commandstats), this INFO call included. */
  private static Map<String, Long> redisCommands() {
    Matcher m = CALLS.matcher(redisConnection.sync().info("commandstats"));
    Map<String, Long> calls = new java.util.TreeMap<>();
    while (m.find()) {
      calls.put(m.group(1), Long.parseLong(m.group(2)));
    }
    return calls;
  }

  /** The commands served between two counts, the most frequent first (the first 6). */
  private static Map<String, Long> topCommands(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> top = new LinkedHashMap<>();
    after.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(6)
        .forEach(e -> top.put(e.getKey(), e.getValue()));
    return top;
  }

  private static long sum(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  private static Round measure(int streamsPerQuestion, int questions) throws Exception {
    String tag = "s" + streamsPerQuestion + "-" + UUID.randomUUID().toString().substring(0, 6);
    Map<String, Long> readsBefore = temporalReads();
    Map<String, Long> redisBefore = redisCommands();
    Map<String, Double> cpuBefore = cpuNow();
    long started = System.nanoTime();
    List<Stream> streams = Collections.synchronizedList(new ArrayList<>());
    ExecutorService askers = Executors.newFixedThreadPool(8, named("bench-asker"));
    try {
      List<CompletableFuture<?>> asked = new ArrayList<>();
      for (int n = 0; n < questions; n++) {
        int question = n;
        if (ASK_RATE > 0) {
          // a load generator's pacing: question n is due n / rate seconds after the first
          long due = started + (long) (n * 1e9 / ASK_RATE);
          java.util.concurrent.locks.LockSupport.parkNanos(due - System.nanoTime());
        }
        asked.add(
            CompletableFuture.runAsync(
                () -> {
                  int caller = question % CALLERS;
                  try {
                    String id =
                        api.ask(
                                "Bearer " + callerKey(caller),
                                tag + "-" + question,
                                "m1",
                                "Where is my card? #" + question + " (" + tag + ")")
                            .get("workflowId")
                            .asText();
                    for (int s = 0; s < streamsPerQuestion; s++) {
                      streams.add(open(id, caller));
                    }
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                askers));
      }
      CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
    } finally {
      askers.shutdown();
    }
    // the intake: every question asked and every stream open (or ended); the machine's share then
    try {
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> streams.stream().noneMatch(st -> st.openedMillis == 0 && !st.done.isDone()));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // an intake longer than a minute is measured up to here: its figures say so
    }
    long intakeDone = System.currentTimeMillis();
    double intakeSeconds = round((System.nanoTime() - started) / 1e9);
    Cpu intakeCpu = cpuBetween(cpuBefore, cpuNow());
    int failed = 0;
    long deadline = System.nanoTime() + Duration.ofSeconds(questions / RATE + 180).toNanos();
    for (Stream stream : streams) {
      try {
        stream.done.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        failed++;
      }
    }
    double seconds = round((System.nanoTime() - started) / 1e9);
    Cpu cpu = cpuBetween(cpuBefore, cpuNow());
    Map<String, Long> readsAfter = temporalReads();
    Map<String, Long> redisAfter = redisCommands();
    Map<String, Long> reads = new java.util.TreeMap<>();
    readsAfter.forEach(
        (method, count) -> reads.put(method, count - readsBefore.getOrDefault(method, 0L)));
    long totalReads = reads.values().stream().mapToLong(Long::longValue).sum();
    List<Double> latencies = new ArrayList<>();
    // a stage change or answer (a worker's publication) apart from a new place (a lane's notice)
    List<Double> stageLatencies = new ArrayList<>();
    List<Double> placeLatencies = new ArrayList<>();
    // changes published before their stream opened arrive when it opens (read from the key): their
    // delay is the stream's opening, apart from the notification path the target is about
    List<Double> catchUp = new ArrayList<>();
    List<Double> duringIntake = new ArrayList<>();
    List<Double> afterIntake = new ArrayList<>();
    List<Double> opens = new ArrayList<>();
    int events = 0;
    int positions = 0;
    int answered = 0;
    for (Stream stream : streams) {
      List<Received> received;
      synchronized (stream.events) {
        received = List.copyOf(stream.events);
      }
      events += received.size();
      if (stream.openedMillis > 0) {
        opens.add((double) (stream.openedMillis - stream.requestedMillis));
      }
      for (Received r : received) {
        if (r.position() != null) {
          positions++;
        }
        if (r.publishedMillis() == null) {
          continue;
        }
        double millis = r.receivedMillis() - r.publishedMillis();
        if (r.publishedMillis() < stream.openedMillis) {
          catchUp.add(millis);
          continue;
        }
        latencies.add(millis);
        (r.publishedMillis() <= intakeDone ? duringIntake : afterIntake).add(millis);
        (r.stage().equals("WAITING_IN_QUEUE") ? placeLatencies : stageLatencies).add(millis);
      }
      if (!received.isEmpty() && received.get(received.size() - 1).stage().equals("ANSWERED")) {
        answered++;
      }
    }
    boolean timed = !latencies.isEmpty();
    return new Round(
        streamsPerQuestion,
        questions,
        streams.size(),
        failed,
        seconds,
        reads,
        round((double) totalReads / questions),
        round((double) (sum(redisAfter) - sum(redisBefore)) / questions),
        topCommands(redisBefore, redisAfter),
        events,
        positions,
        answered,
        latencies.size(),
        timed ? percentile(latencies, 0.50) : null,
        timed ? percentile(latencies, 0.99) : null,
        timed ? percentile(latencies, 1.0) : null,
        stageLatencies.isEmpty() ? null : percentile(stageLatencies, 0.99),
        placeLatencies.isEmpty() ? null : percentile(placeLatencies, 0.99),
        catchUp.isEmpty() ? null : percentile(catchUp, 0.99),
        intakeSeconds,
        intakeCpu.machineBusyPercent(),
        duringIntake.isEmpty() ? null : percentile(duringIntake, 0.99),
        afterIntake.isEmpty() ? null : percentile(afterIntake, 0.99),
        opens.isEmpty() ? null : percentile(opens, 0.50),
        opens.isEmpty() ? null : percentile(opens, 0.99),
        intakeCpu,
        cpu);
  }

  @Test
  void temporalReadsScaleWithChangesNotWithWatchers() throws Exception {
    // warm-up: the apps' JIT and connections, outside the figures
    Round warm = measure(1, 20);
    System.out.printf("[streams] warm-up: %s%n", warm);
    List<Round> rounds = new ArrayList<>();
    String broken = null;
    for (int streams : STREAM_COUNTS) {
      try {
        Round round = measure(streams, QUESTIONS);
        System.out.printf("[streams] %s%n", round);
        rounds.add(round);
      } catch (Exception e) {
        // the rounds before are still reported
        broken = streams + " streams/q: " + e;
        System.out.printf("[streams] round of %s%n", broken);
        break;
      }
    }
    String table = table(rounds) + (broken == null ? "" : "NOT MEASURED: " + broken + "\n");
    System.out.println(table);
    Path dir = Infra.repoRoot().resolve("e2e/target/bench");
    Files.createDirectories(dir);
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("at", Instant.now().toString());
    report.put("appJar", System.getProperty("app.jar"));
    report.put("instances", "1 api + 1 worker");
    report.put("modelLatencyMs", LATENCY_MS);
    report.put("laneRate", RATE);
    report.put("callers", CALLERS);
    report.put("askRate", ASK_RATE > 0 ? ASK_RATE : "all at once");
    report.put("rounds", rounds);
    Files.writeString(dir.resolve("streams.json"), JSON.writeValueAsString(report));
    Files.writeString(dir.resolve("streams.txt"), table);

    SoftAssertions softly = new SoftAssertions();
    softly.assertThat(broken).as("a round that could not be measured").isNull();
    for (Round r : rounds) {
      softly
          .assertThat(r.streamsFailed())
          .as("failed streams at %d", r.streamsPerQuestion())
          .isZero();
      softly
          .assertThat(r.answeredStreams())
          .as("streams that ended with the answer at %d", r.streamsPerQuestion())
          .isEqualTo(r.streams());
      softly
          .assertThat(r.temporalReadsPerQuestion())
          .as("Temporal reads per question at %d streams", r.streamsPerQuestion())
          .isLessThanOrEqualTo(READS_PER_QUESTION_TARGET);
      softly
          .assertThat(r.publicationToReceiptP99Ms())
          .as("publication to receipt p99 ms at %d streams", r.streamsPerQuestion())
          .isNotNull();
      if (r.publicationToReceiptP99Ms() != null) {
        softly
            .assertThat(r.publicationToReceiptP99Ms())
            .as("publication to receipt p99 ms at %d streams", r.streamsPerQuestion())
            .isLessThanOrEqualTo(PUBLICATION_P99_TARGET_MS);
      }
    }
    softly.assertAll();
  }

  /** A round's (or its intake's) CPU seconds by process and by thread group. */
  private static String cpuLine(String when, Cpu c) {
    return String.format(
        "CPU s %s streams/q: api %.1f, worker %.1f, benchmark client %.1f, Temporal %.1f, Redis %.1f;"
            + " api threads %s; client threads %s",
        when,
        c.api(),
        c.worker(),
        c.client(),
        c.temporal(),
        c.redis(),
        c.apiThreads(),
        c.clientThreads());
  }

  private static String table(List<Round> rounds) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            "streams: 1 api + 1 worker instance, %d questions a round from %d callers (%s), model"
                + " latency %d ms, lane %d/s (a line forms); app %s%n",
            QUESTIONS,
            CALLERS,
            ASK_RATE > 0 ? "asked at " + ASK_RATE + "/s" : "asked at once",
            LATENCY_MS,
            RATE,
            System.getProperty("app.jar")));
    out.append(
        String.format(
            "%-8s %-8s %-7s %-9s %-30s %-10s %-10s %-9s %-8s %-22s%n",
            "streams/q",
            "streams",
            "failed",
            "seconds",
            "Temporal reads (api) by method",
            "reads/q",
            "redis/q",
            "events",
            "answered",
            "publication->receipt ms p50/p99/max"));
    for (Round r : rounds) {
      out.append(
          String.format(
              "%-9d %-8d %-7d %-9.1f %-30s %-10.1f %-10.1f %-9d %-8d %s%n",
              r.streamsPerQuestion(),
              r.streams(),
              r.streamsFailed(),
              r.seconds(),
              r.temporalReadsByMethod(),
              r.temporalReadsPerQuestion(),
              r.redisCommandsPerQuestion(),
              r.statusEvents(),
              r.answeredStreams(),
              r.publicationToReceiptP50Ms() == null
                  ? "n/a (no publication time in the events)"
                  : r.publicationToReceiptP50Ms()
                      + " / "
                      + r.publicationToReceiptP99Ms()
                      + " / "
                      + r.publicationToReceiptMaxMs()));
    }
    for (Round r : rounds) {
      out.append(
          String.format(
              "publication->receipt p99 at %d streams/q: stage changes and answers %s ms, places"
                  + " (lane notices) %s ms (changes published while the stream was open); changes"
                  + " published before it opened, received at its opening: p99 %s ms; stream"
                  + " opening (request to response) p50/p99 %s / %s ms%n",
              r.streamsPerQuestion(),
              r.stageChangesP99Ms(),
              r.placesP99Ms(),
              r.catchUpP99Ms(),
              r.openP50Ms(),
              r.openP99Ms()));
    }
    for (Round r : rounds) {
      out.append(
          String.format(
              "intake at %d streams/q (every question asked, every stream open): %.1f s, machine"
                  + " busy (niced processes aside) %.0f %% of its cores; publication->receipt p99 of"
                  + " changes published during the intake %s ms, after it %s ms%n",
              r.streamsPerQuestion(),
              r.intakeSeconds(),
              r.intakeMachineBusyPercent(),
              r.duringIntakeP99Ms(),
              r.afterIntakeP99Ms()));
    }
    for (Round r : rounds) {
      out.append(cpuLine("in the intake at " + r.streamsPerQuestion(), r.intakeCpu()))
          .append(String.format("%n"));
    }
    for (Round r : rounds) {
      Cpu c = r.cpu();
      out.append(cpuLine("at " + r.streamsPerQuestion(), c))
          .append(
              String.format(
                  "; model %.1f, machine busy (niced processes aside) %.0f %% of %d cores over %.1f"
                      + " s%n",
                  c.model(), c.machineBusyPercent(), c.cores(), r.seconds()));
    }
    for (Round r : rounds) {
      out.append(
          String.format(
              "Redis commands of both instances at %d streams/q, most frequent: %s%n",
              r.streamsPerQuestion(), r.redisTopCommands()));
    }
    out.append(
        String.format(
            "targets: reads/q the same at every stream count and <= %.0f; p99 publication->receipt"
                + " <= %.0f ms%n",
            READS_PER_QUESTION_TARGET, PUBLICATION_P99_TARGET_MS));
    return out.toString();
  }
}
