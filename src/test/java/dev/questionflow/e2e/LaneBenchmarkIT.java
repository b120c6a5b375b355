package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Call;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The lane benchmark of issue 5, against the dev server, Redis and the fake model with TWO app
 * instances (two JVMs) on one task queue: 300 questions at once into a lane of 10 calls/s, the last
 * 20 VIP. Prints the rate the model saw (max per 1 s window, use of the quota while backlogged),
 * where the VIPs were served, and how the sampled positions and ETAs compared with what happened.
 *
 * <p>A benchmark more than a test: it needs the machine to itself (on 2 cores the dev server, two
 * app JVMs and this test share 100 % CPU), so the build skips it; the Maven profile {@code bench}
 * runs it ({@code mvn -pl e2e test -Pbench}), see docs/runbook.md. Its apps run the adaptive
 * controller at the SPEC's one-minute interval, which judges nothing in its first two minutes: the
 * quota stays put for the whole run.
 */
@EnabledIfSystemProperty(named = "flow.bench", matches = "true")
class LaneBenchmarkIT {

  private static final double RATE = 10;
  private static final Pattern NUMBER = Pattern.compile("#(\\d+)");
  private static FakeModelServer model;
  private static AppProcess first;
  private static AppProcess second;
  private static String taskQueue;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.script(
        call -> Reply.text("Answer to: " + call.userMessage()).after(Duration.ofMillis(50)));
    taskQueue = Infra.uniqueTaskQueue("bench");
    // 10 calls per worker, so the throttle always has one waiting: a slot is also held while the
    // activity reads the
    // session history before its call and reports its result to the server after it, which on this
    // loaded machine
    // takes longer than the model call itself
    Map<String, String> env = FlowControlIT.laneEnv(taskQueue, model, RATE, 10);
    // each call's release by the lane's throttle, logged by both apps: the spacing our code gives,
    // before the HTTP
    // client and the fake model's server (all on this CPU-starved machine) add their own jitter
    env.put("LOGGING_LEVEL_DEV_QUESTIONFLOW_ACTIVITIES_FLOWCONTROL", "DEBUG");
    if (System.getProperty("bench.gclog") != null) {
      env.put(
          "JAVA_TOOL_OPTIONS", "-Xlog:gc,safepoint:file=" + Infra.workDir().resolve("gc-%p.log"));
    }
    first = AppProcess.start("bench-1", env);
    second = AppProcess.start("bench-2", env);
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(first, second, model);
  }

  record Sample(long atNanos, String stage, Integer position, Integer eta) {}

  /**
   * A service in production is warm: before the measured burst both apps answer {@value #WARM_UP}
   * questions through the same lane, so the measurement is of the lane and not of two JVMs
   * compiling their hot paths on two cores (the compiler threads take the CPU the throttle's
   * sleepers and the fake model need to wake on time).
   */
  private static final int WARM_UP = 100;

  /** The lane ledger's waiting line in Redis (RedisLaneLedger's key for the primary lane). */
  private static String waitingKey() {
    return "cs:lane:" + taskQueue + "-model-primary:waiting";
  }

  private static void warmUp() throws Exception {
    long before = model.calls().size();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<CompletableFuture<?>> all = new ArrayList<>();
    String run = UUID.randomUUID().toString().substring(0, 6);
    for (int i = 0; i < WARM_UP; i++) {
      int n = i;
      AppProcess app = n % 2 == 0 ? first : second;
      all.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  FlowControlIT.ask(
                      app,
                      "warm-" + run + "-" + n,
                      "m1",
                      "Warm-up: when will my card arrive? " + n,
                      false);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              },
              pool));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    pool.shutdown();
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> model.calls().size() - before >= WARM_UP);
    // the lane idle again before the burst: its ledger's line empty (and so the throttle's bucket
    // full again)
    io.lettuce.core.RedisClient redis = io.lettuce.core.RedisClient.create(Infra.redisUrl());
    try (var connection = redis.connect()) {
      String waitingKey = waitingKey();
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .pollDelay(Duration.ofSeconds(1))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> connection.sync().zcard(waitingKey) == 0);
    } finally {
      redis.shutdown();
    }
    System.out.printf(
        "[flow] warm-up: %d questions answered through the lane before the measured burst%n",
        WARM_UP);
  }

  @Test
  void aBacklogOf300IsServedAtTheLaneRateAcrossTwoInstancesVipFirstWithPositionsAndEtas()
      throws Exception {
    warmUp();
    String run = UUID.randomUUID().toString().substring(0, 6);
    // the lane's backlog over time, from its ledger in Redis (questions waiting for the lane's task
    // queue)
    List<long[]> backlog = Collections.synchronizedList(new ArrayList<>());
    io.lettuce.core.RedisClient redis = io.lettuce.core.RedisClient.create(Infra.redisUrl());
    var redisConnection = redis.connect();
    String waitingKey = waitingKey();
    var sampler = Executors.newSingleThreadScheduledExecutor();
    sampler.scheduleAtFixedRate(
        () -> backlog.add(new long[] {System.nanoTime(), redisConnection.sync().zcard(waitingKey)}),
        0,
        100,
        TimeUnit.MILLISECONDS);
    // the ledger's whole line once a second: its raw ranks against what was served (no workflow, no
    // projection)
    List<Map.Entry<Long, List<String>>> lines = Collections.synchronizedList(new ArrayList<>());
    sampler.scheduleAtFixedRate(
        () ->
            lines.add(
                Map.entry(System.nanoTime(), redisConnection.sync().zrange(waitingKey, 0, -1))),
        0,
        1000,
        TimeUnit.MILLISECONDS);
    // stalls of this JVM (it hosts the fake model): a stalled server receives the calls queued
    // meanwhile together
    List<long[]> stalls = Collections.synchronizedList(new ArrayList<>());
    Thread stallWatch =
        new Thread(
            () -> {
              long last = System.nanoTime();
              while (!Thread.currentThread().isInterrupted()) {
                try {
                  Thread.sleep(5);
                } catch (InterruptedException e) {
                  return;
                }
                long now = System.nanoTime();
                if (now - last > 50_000_000L) {
                  stalls.add(new long[] {last, now});
                }
                last = now;
              }
            });
    stallWatch.setDaemon(true);
    stallWatch.start();
    int standard = 280;
    int vip = 20;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    Map<Integer, Long> submittedAt = new ConcurrentHashMap<>();
    Map<Integer, String> ids = new ConcurrentHashMap<>();
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (int i = 0; i < standard + vip; i++) {
      int n = i;
      AppProcess app = n % 2 == 0 ? first : second;
      all.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  submittedAt.put(n, System.nanoTime());
                  ids.put(
                      n,
                      FlowControlIT.ask(
                          app,
                          "flow-" + run + "-" + n,
                          "m1",
                          "Where is my card? #" + n,
                          n >= standard));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              },
              pool));
      if (n == standard - 1) {
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join(); // VIPs arrive last
      }
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    pool.shutdown();

    // sample the status of a few standard questions from the back half of the queue while they wait
    Map<Integer, List<Sample>> samples = new ConcurrentHashMap<>();
    List<Integer> sampled = List.of(150, 190, 230, 270);
    ExecutorService samplers = Executors.newFixedThreadPool(sampled.size());
    for (int n : sampled) {
      samples.put(n, Collections.synchronizedList(new ArrayList<>()));
      samplers.submit(
          () -> {
            AppProcess app = n % 2 == 0 ? first : second;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(110);
            while (System.nanoTime() < deadline) {
              JsonNode s;
              try {
                s = app.status(ids.get(n));
              } catch (Exception | AssertionError e) {
                System.out.printf("[flow] status of #%d failed: %s%n", n, e);
                Thread.sleep(250);
                continue;
              }
              String stage = s.path("stage").asText();
              samples
                  .get(n)
                  .add(
                      new Sample(
                          System.nanoTime(),
                          stage,
                          s.path("queuePosition").isNull() ? null : s.path("queuePosition").asInt(),
                          s.path("etaSeconds").isNull() ? null : s.path("etaSeconds").asInt()));
              if (stage.equals("ANSWERED")) {
                return null;
              }
              Thread.sleep(250);
            }
            return null;
          });
    }
    samplers.shutdown();
    assertThat(samplers.awaitTermination(120, TimeUnit.SECONDS)).isTrue();
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> callsOf(run).size() >= standard + vip);

    // 1. the rate: after the first second, no 1 s window holds more than 10.5 calls; >= 95 % used
    // while backlogged
    List<Call> calls = callsOf(run);
    long t0 = calls.get(0).receivedNanos();
    long tEnd = calls.get(calls.size() - 1).receivedNanos();
    Windows arrivalWindows =
        perSecond(calls.stream().map(Call::receivedNanos).toList(), t0 + 1_000_000_000L);
    int maxInWindow = arrivalWindows.max();
    int windowsOver = arrivalWindows.over();
    sampler.shutdownNow();
    redisConnection.close();
    redis.shutdown();
    // utilisation while a backlog exists: over every 100 ms sample interval with questions waiting
    // at both ends
    double backloggedSeconds = 0;
    long callsWhileBacklogged = 0;
    long peak = 0;
    synchronized (backlog) {
      for (int i = 1; i < backlog.size(); i++) {
        long[] a = backlog.get(i - 1);
        long[] b = backlog.get(i);
        peak = Math.max(peak, b[1]);
        if (a[1] > 0 && b[1] > 0 && a[0] >= t0 + 1_000_000_000L) {
          backloggedSeconds += (b[0] - a[0]) / 1e9;
          callsWhileBacklogged +=
              calls.stream()
                  .filter(c -> c.receivedNanos() >= a[0] && c.receivedNanos() < b[0])
                  .count();
        }
      }
    }
    double seconds = (tEnd - t0) / 1e9;
    // how evenly the calls came: the gaps between consecutive arrivals (the throttle spaces them
    // ~101.5 ms apart)
    List<Double> gaps = new ArrayList<>();
    for (int i = 1; i < calls.size(); i++) {
      gaps.add((calls.get(i).receivedNanos() - calls.get(i - 1).receivedNanos()) / 1e6);
    }
    java.nio.file.Path arrivals = Infra.workDir().resolve("lane-benchmark-calls.tsv");
    StringBuilder tsv = new StringBuilder("ms\tquestion\tepochMillis\n");
    long epochOffset = System.currentTimeMillis() * 1_000_000 - System.nanoTime();
    for (Call c : calls) {
      tsv.append(
          String.format(
              "%.1f\t%d\t%d%n",
              (c.receivedNanos() - t0) / 1e6,
              number(c),
              (c.receivedNanos() + epochOffset) / 1_000_000));
    }
    java.nio.file.Files.writeString(arrivals, tsv);
    System.out.printf("[flow] arrivals written to %s%n", arrivals);
    stallWatch.interrupt();
    long firstEpoch = (calls.get(0).receivedNanos() + epochOffset) / 1_000_000;
    List<Long> released = new ArrayList<>();
    Pattern releasedAt = Pattern.compile("lane \\S+-model-primary: call released at (\\d+)");
    for (String app : List.of("bench-1", "bench-2")) {
      for (String line : java.nio.file.Files.readAllLines(Infra.workDir().resolve(app + ".log"))) {
        Matcher m = releasedAt.matcher(line);
        if (m.find() && Long.parseLong(m.group(1)) >= firstEpoch - 500) {
          released.add(Long.parseLong(m.group(1)));
        }
      }
    }
    Collections.sort(released);
    int maxReleased =
        perSecond(
                released.stream().map(ms -> ms * 1_000_000).toList(),
                (firstEpoch + 1000) * 1_000_000)
            .max();
    double late = 0;
    double local = 0;
    for (AppProcess app : List.of(first, second)) {
      String metrics = app.get("/actuator/prometheus").body();
      Matcher m =
          Pattern.compile("cs_lane_throttle_late_total(\\{[^}]*})? ([0-9.]+)").matcher(metrics);
      late += m.find() ? Double.parseDouble(m.group(2)) : 0;
      m = Pattern.compile("cs_lane_throttle_fallback_total(\\{[^}]*})? ([0-9.]+)").matcher(metrics);
      local += m.find() ? Double.parseDouble(m.group(2)) : 0;
    }
    System.out.printf(
        "[flow] throttle slots given up by late callers (stalls): %.0f; decided per instance because"
            + " Redis failed: %.0f%n",
        late, local);
    System.out.printf(
        "[flow] the lane throttle released %d calls; max %d in any 1 s window after the first second"
            + " (at the apps, before the HTTP client)%n",
        released.size(), maxReleased);
    synchronized (stalls) {
      for (long[] stall : stalls) {
        System.out.printf(
            "[flow] the test JVM (fake model) stalled %.0f ms from %.0f ms%n",
            (stall[1] - stall[0]) / 1e6, (stall[0] - t0) / 1e6);
      }
    }
    Collections.sort(gaps);
    System.out.printf(
        "[flow] gaps between calls (ms): min %.0f, p1 %.0f, p5 %.0f, p25 %.0f, median %.0f, p95 %.0f,"
            + " max %.0f%n",
        gaps.get(0),
        gaps.get(gaps.size() / 100),
        gaps.get(gaps.size() / 20),
        gaps.get(gaps.size() / 4),
        gaps.get(gaps.size() / 2),
        gaps.get(gaps.size() * 95 / 100),
        gaps.get(gaps.size() - 1));
    double utilisation = callsWhileBacklogged / backloggedSeconds / RATE;
    System.out.printf(
        "[flow] %d calls in %.1f s over 2 instances (%.2f calls/s overall); backlog up to %d"
            + " questions, present for %.1f s, during which the model saw %.2f calls/s = %.1f %% of the %.0f/s quota;"
            + " max %d calls in any 1 s window after the first second (%d windows above %.0f)%n",
        calls.size(),
        seconds,
        (calls.size() - 1) / seconds,
        peak,
        backloggedSeconds,
        callsWhileBacklogged / backloggedSeconds,
        100 * utilisation,
        RATE,
        maxInWindow,
        windowsOver,
        RATE);
    // the issue's targets: <= 10.5 calls in every 1 s window after the first second, >= 95 % use
    // while backlogged
    // (soft: a benchmark reports every figure before it fails)
    org.assertj.core.api.SoftAssertions softly = new org.assertj.core.api.SoftAssertions();
    softly.assertThat(local).as("throttle decisions without Redis").isZero();
    softly
        .assertThat((double) maxInWindow)
        .as("calls in a 1 s window")
        .isLessThanOrEqualTo(RATE * 1.05);
    softly.assertThat(backloggedSeconds).as("a backlog formed").isGreaterThan(5.0);
    softly.assertThat(utilisation).as("quota used while backlogged").isGreaterThanOrEqualTo(0.95);

    // the raw ledger: how far each member's rank was from the number served between the snapshot
    // and its call
    Map<String, Integer> numberOf = new HashMap<>();
    ids.forEach((n, id) -> numberOf.put(id, n));
    long lastVipNanos = 0;
    for (int i = 0; i < calls.size(); i++) {
      if (number(calls.get(i)) >= standard) {
        lastVipNanos = Math.max(lastVipNanos, calls.get(i).receivedNanos());
      }
    }
    int ledgerChecked = 0;
    int ledgerOff = 0;
    int ledgerWorst = 0;
    long signedSum = 0;
    java.util.Set<String> neverServed = new java.util.HashSet<>();
    java.util.Set<String> unknown = new java.util.HashSet<>();
    synchronized (lines) {
      for (Map.Entry<Long, List<String>> line : lines) {
        if (line.getKey() < lastVipNanos) {
          continue;
        }
        List<String> members = line.getValue();
        for (int rank = 0; rank < members.size(); rank++) {
          Integer n = numberOf.get(members.get(rank));
          if (n == null) {
            unknown.add(members.get(rank));
            continue;
          }
          int question = n;
          if (calls.stream().noneMatch(c -> number(c) == question)) {
            neverServed.add(members.get(rank));
            continue;
          }
          long at = line.getKey();
          long mine = callNanos(calls, n);
          long served =
              calls.stream()
                  .filter(c -> c.receivedNanos() > at && c.receivedNanos() < mine)
                  .map(LaneBenchmarkIT::number)
                  .distinct()
                  .count();
          int excess = (int) Math.abs(rank - served) - (int) Math.max(2, Math.ceil(0.1 * served));
          ledgerChecked++;
          signedSum += rank - served;
          ledgerOff += excess > 0 ? 1 : 0;
          ledgerWorst = Math.max(ledgerWorst, excess);
        }
      }
    }
    System.out.printf(
        "[flow] raw ledger ranks (after the last VIP): %d checked, %d beyond max(2, 10 %%),"
            + " worst excess %d, mean rank - served %.1f; members never served %d, not of this run %d%n",
        ledgerChecked,
        ledgerOff,
        ledgerWorst,
        ledgerChecked == 0 ? 0.0 : (double) signedSum / ledgerChecked,
        neverServed.size(),
        unknown.size());

    // 2. priority: every VIP question (submitted last) is served before the standard ones still
    // waiting then
    Map<Integer, Integer> servedIndex = new HashMap<>();
    for (int i = 0; i < calls.size(); i++) {
      servedIndex.putIfAbsent(number(calls.get(i)), i);
    }
    int lastVip = 0;
    for (int n = standard; n < standard + vip; n++) {
      lastVip = Math.max(lastVip, servedIndex.get(n));
    }
    int firstVipSubmittedServedBefore = 0;
    for (int n = 0; n < standard; n++) {
      if (servedIndex.get(n) > lastVip) {
        firstVipSubmittedServedBefore++;
      }
    }
    System.out.printf(
        "[flow] all %d VIP questions served by call #%d; %d earlier standard questions served after"
            + " them%n",
        vip, lastVip, firstVipSubmittedServedBefore);
    softly.assertThat(lastVip).as("VIPs overtake the standard backlog").isLessThan(standard / 2);

    // 3. positions never increase, reach 0 before processing, and match the number served in
    // between
    for (int n : sampled) {
      List<Sample> waiting = samples.get(n).stream().filter(s -> s.position() != null).toList();
      assertThat(waiting).as("samples of #%d: %s", n, samples.get(n)).isNotEmpty();
      for (int i = 1; i < waiting.size(); i++) {
        softly
            .assertThat(waiting.get(i).position())
            .as("#%d never goes up", n)
            .isLessThanOrEqualTo(waiting.get(i - 1).position());
      }
      softly.assertThat(waiting.get(waiting.size() - 1).position()).as("#%d reaches 0", n).isZero();
      long myCall = callNanos(calls, n);
      int worst = 0;
      long lastVipCall = calls.get(lastVip).receivedNanos();
      // the accuracy promise is for single-priority traffic: a question that VIPs overtook while it
      // waited carries
      // the overtaking in its (never increasing) position, so only its monotony and its 0 are
      // checked
      long firstSample = waiting.get(0).atNanos();
      long overtakenBy =
          calls.stream()
              .filter(
                  c ->
                      number(c) >= standard
                          && c.receivedNanos() > firstSample
                          && c.receivedNanos() < myCall)
              .count();
      for (Sample s : waiting) {
        if (s.atNanos() < lastVipCall || overtakenBy > 0) {
          continue;
        }
        long servedBetween =
            calls.stream()
                .filter(c -> c.receivedNanos() > s.atNanos() && c.receivedNanos() < myCall)
                .map(LaneBenchmarkIT::number)
                .distinct()
                .count();
        int error = (int) Math.abs(s.position() - servedBetween);
        worst = Math.max(worst, error - (int) Math.max(2, 0.1 * servedBetween));
        softly
            .assertThat(error)
            .as("#%d sample %s vs %d served after it", n, s, servedBetween)
            .isLessThanOrEqualTo((int) Math.max(2, Math.ceil(0.1 * servedBetween)));
      }
      Sample firstWithEta = waiting.get(0);
      // the ETA of the first sample taken while waiting, against the wait from that sample to the
      // call
      double actual = (myCall - firstWithEta.atNanos()) / 1e9;
      System.out.printf(
          "[flow] #%d: %d samples, first position %d with ETA %d s, actual wait from then %.1f s;"
              + " worst position error beyond the tolerance %s%n",
          n,
          waiting.size(),
          firstWithEta.position(),
          firstWithEta.eta(),
          actual,
          overtakenBy > 0
              ? "(not checked: " + overtakenBy + " VIPs overtook it)"
              : Integer.toString(worst));
      if (overtakenBy == 0
          && actual > 0) { // actual <= 0: the call had started when the status was read
        softly
            .assertThat((double) firstWithEta.eta())
            .as("#%d ETA", n)
            .isBetween(actual * 0.75, actual * 1.25);
      }
    }
    softly.assertAll();
  }

  /** The most events in any 1 s window, and how many windows held more than the rate. */
  record Windows(int max, int over) {}

  /**
   * Over windows [t, t + 1 s) that start at an event at or after {@code fromNanos}; {@code
   * sortedNanos} ascending.
   */
  static Windows perSecond(List<Long> sortedNanos, long fromNanos) {
    int max = 0;
    int over = 0;
    for (int i = 0; i < sortedNanos.size(); i++) {
      if (sortedNanos.get(i) < fromNanos) {
        continue;
      }
      int j = i;
      while (j < sortedNanos.size() && sortedNanos.get(j) < sortedNanos.get(i) + 1_000_000_000L) {
        j++;
      }
      max = Math.max(max, j - i);
      over += j - i > RATE ? 1 : 0;
    }
    return new Windows(max, over);
  }

  private static List<Call> callsOf(String run) {
    return model.calls().stream()
        .filter(c -> c.userMessage() != null && c.userMessage().startsWith("Where is my card? #"))
        .filter(c -> c.receivedNanos() > 0)
        .sorted((a, b) -> Long.compare(a.receivedNanos(), b.receivedNanos()))
        .toList();
  }

  private static int number(Call c) {
    Matcher m = NUMBER.matcher(c.userMessage());
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  private static long callNanos(List<Call> calls, int n) {
    return calls.stream()
        .filter(c -> number(c) == n)
        .mapToLong(Call::receivedNanos)
        .min()
        .orElseThrow();
  }
}
