package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.e2e.JavaProcesses.FakeModel;
import dev.questionflow.e2e.JavaProcesses.FakeModel.ModelCall;
import dev.questionflow.e2e.PeerContestants.Contestant;
import dev.questionflow.e2e.PeerContestants.Level;
import dev.questionflow.e2e.PeerContestants.Question;
import dev.questionflow.e2e.PeerContestants.Result;
import dev.questionflow.faq.FaqEntry;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.FaqPacks;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The same storms against three ways of putting a model in front of customers: ours (two instances,
 * the dev server, Redis), a naive synchronous bot (bench/naive) and two LiteLLM proxies
 * (bench/litellm). One fake primary model with a provider's token bucket and 1-3 s latency, and a
 * backup with its own, each a process of its own that logs every call. Scenarios, one contestant at
 * a time: overload (5x the quota, every 20th question a VIP), an outage (the primary answers 500
 * for 30 s at 80 % of the quota), a slow model (20 s for 30 s), a retry storm (the slow model with
 * back ends that retry a failed or slow request once) and a burst (10x the quota for 5 s, then 1
 * question/s; ours' back end asks for upgrades). Customer time is read from each question's first
 * answer. {@code bin/bench peers [--quick]}; figures in {@link PeersReport}.
 */
@EnabledIfSystemProperty(named = "flow.bench", matches = "true")
class PeersBenchmarkIT {

  static final boolean QUICK = Boolean.getBoolean("peers.quick");
  static final double QUOTA = 5;
  static final double BACKUP_QUOTA = 2;
  private static final String LATENCY = "1000-3000";
  private static final Pattern TAG = Pattern.compile("#(\\d+) \\(([a-z-]+-[0-9a-f]{6})\\)");

  /** Ours' collection waits this long after the last question when it waits for upgrades. */
  static final Duration UPGRADE_WAIT = Duration.ofMinutes(3);

  /** An upgrade counts in the burst's figures when it came this soon after its question. */
  static final Duration UPGRADE_COUNTED = Duration.ofMinutes(2);

  /** A stretch of the open-loop arrivals: {@code rate} questions per second for {@code seconds}. */
  record Phase(double rate, int seconds) {
    int count() {
      return (int) Math.round(rate * seconds);
    }
  }

  /**
   * A storm: its arrivals, phase after phase, and the primary's fault from {@code eventFrom} to
   * {@code eventTo} (seconds from the start; none when {@code faultOn} is null). {@code vipEvery}:
   * question n is a VIP when n % vipEvery == 0 (0: none); {@code upgrades}: ours' back end asks for
   * a fuller answer after a quick one.
   */
  record Scenario(
      String id,
      String title,
      List<Phase> phases,
      int eventFrom,
      int eventTo,
      String faultOn,
      String faultOff,
      boolean retrying,
      int vipEvery,
      boolean upgrades) {

    /** One phase of {@code rate} questions/s for {@code seconds}, no VIPs, no upgrades. */
    Scenario(
        String id,
        String title,
        double rate,
        int seconds,
        int eventFrom,
        int eventTo,
        String faultOn,
        String faultOff,
        boolean retrying) {
      this(
          id,
          title,
          List.of(new Phase(rate, seconds)),
          eventFrom,
          eventTo,
          faultOn,
          faultOff,
          retrying,
          0,
          false);
    }

    int seconds() {
      return phases.stream().mapToInt(Phase::seconds).sum();
    }

    int count() {
      return phases.stream().mapToInt(Phase::count).sum();
    }

    /** The phase question {@code n} is offered in. */
    int phaseOf(int n) {
      int first = 0;
      for (int p = 0; p < phases.size(); p++) {
        first += phases.get(p).count();
        if (n < first) {
          return p;
        }
      }
      return phases.size() - 1;
    }

    /** When question {@code n} is due, in nanoseconds from the first. */
    long dueNanos(int n) {
      long start = 0;
      int first = 0;
      for (Phase phase : phases) {
        if (n < first + phase.count()) {
          return start + (long) ((n - first) * 1e9 / phase.rate());
        }
        first += phase.count();
        start += phase.seconds() * 1_000_000_000L;
      }
      return start;
    }

    /** The seconds a phase begins at, after the first. */
    List<Integer> phaseStarts() {
      List<Integer> starts = new ArrayList<>();
      int at = 0;
      for (int p = 0; p + 1 < phases.size(); p++) {
        at += phases.get(p).seconds();
        starts.add(at);
      }
      return starts;
    }

    boolean vip(int n) {
      return vipEvery > 0 && n % vipEvery == 0;
    }

    /** "25 questions/s for 60 s", phases joined by ", then ". */
    String arrivals() {
      List<String> parts = new ArrayList<>();
      for (Phase phase : phases) {
        parts.add(
            String.format(
                "%.0f question%s/s for %d s",
                phase.rate(), phase.rate() == 1 ? "" : "s", phase.seconds()));
      }
      return String.join(", then ", parts);
    }
  }

  /** The quota for 30 s (a quarter with --quick), the same for every contestant. */
  static Scenario warmUp() {
    return new Scenario(
        "warm-up",
        "Warm-up: the quota for 30 s",
        List.of(new Phase(QUOTA, QUICK ? 8 : 30)),
        0,
        0,
        null,
        null,
        false,
        0,
        false);
  }

  /** The scenarios named in {@code -Dpeers.scenarios} (all when unset), to try one alone. */
  static List<Scenario> chosen(List<Scenario> all) {
    String names = System.getProperty("peers.scenarios", "");
    if (names.isBlank()) {
      return all;
    }
    List<String> wanted = List.of(names.split(","));
    return all.stream().filter(s -> wanted.contains(s.id())).toList();
  }

  static List<Scenario> scenarios() {
    int scale = QUICK ? 4 : 1;
    int steady = 70 / scale;
    int from = 20 / scale;
    int to = 50 / scale;
    return List.of(
        new Scenario(
            "overload",
            "Overload: 5x the quota",
            List.of(new Phase(QUOTA * 5, 60 / scale)),
            0,
            0,
            null,
            null,
            false,
            20,
            false),
        new Scenario(
            "outage",
            "Outage: the primary answers 500 for 30 s, at 80 % of the quota",
            QUOTA * 0.8,
            steady,
            from,
            to,
            "outage=500",
            "recover",
            false),
        slowModel("slow", "Slow model: 20 s latency for 30 s, at 80 % of the quota", false),
        slowModel(
            "retry-storm",
            "Retry storm: the slow model, back ends retry a failed or slow (10 s) request once",
            true),
        // 10x the quota, then 1 question/s: does the line drain, and do quick answers get upgraded?
        new Scenario(
            "burst",
            "Burst: 10x the quota for 5 s, then 1 question/s",
            List.of(new Phase(QUOTA * 10, Math.max(1, 5 / scale)), new Phase(1, 55 / scale)),
            0,
            0,
            null,
            null,
            false,
            0,
            true));
  }

  /**
   * 80 % of the quota; the primary's latency is 20 s from 20 s to 50 s (a quarter with --quick).
   */
  private static Scenario slowModel(String id, String title, boolean retrying) {
    int scale = QUICK ? 4 : 1;
    return new Scenario(
        id,
        title,
        QUOTA * 0.8,
        70 / scale,
        20 / scale,
        50 / scale,
        "latency-ms=20000",
        "latency-ms=" + LATENCY,
        retrying);
  }

  /** One question's life as the back end saw it. */
  record Asked(Question question, Result result) {}

  /**
   * One second of a run: first answers by level, upgrades (a model's answer after a quick one),
   * model calls by status, queue, processes.
   */
  record Second(
      int t,
      int full,
      int fallback,
      int errors,
      int upgrades,
      int primaryOk,
      int primaryRefused,
      int primaryFailed,
      int backupOk,
      int backupRefused,
      int waiting,
      long contestantQueue,
      long rssMb,
      long threads) {}

  /**
   * A contestant's figures in a scenario. Every "answered" figure is read from the customer's first
   * answer. {@code ttfaP50}, {@code ttfaP99}: time to first answer over every question offered, one
   * without an answer counting as never (null: the percentile falls on those); {@code p50} to
   * {@code p99}: over the answered in 60 s. {@code vipsByModel}: VIP questions whose answer, first
   * or upgraded, came from a model within 60 s. {@code upgrades}: model answers after a quick one
   * (ours). {@code ledgerEntries}: ours' lane ledger entries once the scenario settled (null: no
   * ledger). {@code burst}: the burst scenario's extra figures (null in the others).
   */
  record Figures(
      String contestant,
      String scenario,
      int offered,
      int answered60s,
      int answered15s,
      int answered30s,
      Double ttfaP50,
      Double ttfaP99,
      int full60s,
      int fallback60s,
      int tickets,
      int errors,
      double p50,
      double p95,
      double p99,
      int vips,
      int vipsByModel,
      int upgrades,
      int modelCalls,
      double modelBusy,
      int refused,
      int failed,
      int wasted,
      double callsPerQuestion,
      int duplicates,
      Long ledgerEntries,
      long peakRssMb,
      long peakThreads,
      BurstFigures burst,
      List<Second> timeline) {}

  /**
   * The burst scenario's extra figures. Of the burst phase's questions, those whose first answer
   * was not a model's ({@code quickAnswers}) and how many of them a model's answer replaced within
   * 2 minutes of their offer ({@code upgradedIn2Min}); of the questions offered after the burst,
   * those a model answered (first or upgraded) within 60 s, the p99 seconds from offer to that
   * answer, and the p99 of the model's own latency on their calls (from the fake's call log; null:
   * none). The same for the questions offered once the contestant had caught up with the burst
   * ({@code caughtUpSeconds} after its last question, every burst question had its first answer;
   * null: never): before that, on this machine, a question waits for CPU behind the burst's own
   * first answers, whatever its place in the model's line.
   */
  record BurstFigures(
      int burstQuestions,
      int quickAnswers,
      int upgradedIn2Min,
      int afterQuestions,
      int afterByModel,
      Double afterModelAnswerP99,
      Double modelLatencyP99,
      Double caughtUpSeconds,
      int afterCaughtUpQuestions,
      int afterCaughtUpByModel,
      Double afterCaughtUpModelAnswerP99) {}

  @Test
  void theSameStormsAgainstOursANaiveBotAndALiteLlmProxy() throws Exception {
    List<String> contestants =
        List.of(System.getProperty("peers.contestants", "ours,naive,litellm").split(","));
    List<String> questions = questionTexts();
    List<Figures> all = new ArrayList<>();
    long started = System.nanoTime();
    try (FakeModel primary =
            FakeModel.start(
                "peers-primary",
                "--token-bucket",
                (int) QUOTA + ":" + (int) QUOTA,
                "--latency-ms",
                LATENCY,
                "--seed",
                "7");
        FakeModel backup =
            FakeModel.start(
                "peers-backup",
                "--token-bucket",
                (int) BACKUP_QUOTA + ":" + (int) BACKUP_QUOTA,
                "--latency-ms",
                LATENCY,
                "--seed",
                "8")) {
      for (String name : contestants) {
        try (Contestant contestant = start(name.strip(), primary, backup)) {
          // every contestant first serves the quota for a while, its figures not kept: the
          // scenarios measure a warm service (JIT, the FAQ encoder, connections), as a deployed
          // one is when a storm comes
          run(contestant, warmUp(), primary, backup, questions);
          for (Scenario scenario : chosen(scenarios())) {
            contestant.rest();
            Figures figures = run(contestant, scenario, primary, backup, questions);
            System.out.println(PeersReport.line(figures));
            all.add(figures);
          }
        }
      }
    }
    double minutes = (System.nanoTime() - started) / 60e9;
    // docs/benchmarks.md is the full run's: every contestant in every scenario
    boolean full = contestants.size() == 3 && chosen(scenarios()).size() == scenarios().size();
    PeersReport.write(all, chosen(scenarios()), minutes, full && Boolean.getBoolean("peers.docs"));
    assertThat(all).hasSize(contestants.size() * chosen(scenarios()).size());
  }

  private static Contestant start(String name, FakeModel primary, FakeModel backup)
      throws Exception {
    List<String> jvm =
        List.of(System.getProperty("peers.jvm", "-Xmx512m -XX:TieredStopAtLevel=1").split(" "));
    return switch (name) {
      case "ours" -> new PeerContestants.Ours(primary, backup, QUOTA, jvm);
      case "naive" -> new PeerContestants.Naive(primary, jvm);
      case "litellm" -> new PeerContestants.LiteLlm(primary, backup, QUOTA, BACKUP_QUOTA);
      default -> throw new IllegalArgumentException("no contestant " + name);
    };
  }

  /** Phrasings of the default pack's entries, in a seeded order. */
  private static List<String> questionTexts() {
    FaqPack pack = FaqPacks.loadFromClasspath("banking77");
    List<String> texts = new ArrayList<>();
    for (FaqEntry entry : pack.entries()) {
      texts.add(entry.question());
      texts.addAll(entry.phrasings());
    }
    java.util.Collections.shuffle(texts, new java.util.Random(42));
    return texts;
  }

  private static Figures run(
      Contestant contestant,
      Scenario scenario,
      FakeModel primary,
      FakeModel backup,
      List<String> texts)
      throws Exception {
    String tag = scenario.id() + "-" + UUID.randomUUID().toString().substring(0, 6);
    int count = scenario.count();
    Map<Integer, Asked> asked = new ConcurrentHashMap<>();
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    Map<Integer, long[]> samples = new ConcurrentHashMap<>(); // second -> {queue, rss, threads}
    ScheduledExecutorService clock = Executors.newScheduledThreadPool(2);
    long t0 = BenchFigures.nowMicros();
    long t0Nanos = System.nanoTime();
    clock.scheduleAtFixedRate(
        () -> {
          int second = (int) ((System.nanoTime() - t0Nanos) / 1_000_000_000L);
          long[] stats = ProcessMemory.of(contestant.pids());
          samples.put(second, new long[] {contestant.queueDepth(), stats[0], stats[1]});
        },
        0,
        1,
        TimeUnit.SECONDS);
    if (scenario.faultOn() != null) {
      clock.schedule(
          () -> fault(primary, scenario.faultOn()), scenario.eventFrom(), TimeUnit.SECONDS);
      clock.schedule(
          () -> fault(primary, scenario.faultOff()), scenario.eventTo(), TimeUnit.SECONDS);
    }
    // open loop: question i is offered at its phase's start + its place / the phase's rate,
    // whatever the contestant is doing
    for (int i = 0; i < count; i++) {
      long due = t0Nanos + scenario.dueNanos(i);
      LockSupport.parkNanos(due - System.nanoTime());
      String text = texts.get(i % texts.size()) + " #" + i + " (" + tag + ")";
      Question question =
          new Question(i, text, BenchFigures.nowMicros(), scenario.vip(i), scenario.upgrades());
      pending.add(
          contestant
              .ask(question, scenario.retrying())
              .thenAccept(result -> asked.put(question.n(), new Asked(question, result))));
    }
    // the customers' patience after the last question; upgrades may take longer to come
    long deadline =
        BenchFigures.nowMicros()
            + (scenario.upgrades() ? UPGRADE_WAIT : PeerContestants.PATIENCE).toNanos() / 1000;
    try {
      CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
          .get(PeerContestants.PATIENCE.toSeconds() + 10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      // the unfinished are counted as errors below
    }
    Map<Integer, Result> later = contestant.collect(deadline, scenario.upgrades());
    clock.shutdownNow();
    fault(primary, "recover");
    fault(primary, "latency-ms=" + LATENCY);
    // settle: no question of this scenario in progress before the next begins; what the lanes'
    // ledger still holds then is measured, not waited for
    contestant.settle();
    Long ledgerEntries = contestant.ledgerEntries();
    quiet(primary, backup);
    List<ModelCall> primaryCalls = tagged(primary.calls(), tag);
    List<ModelCall> backupCalls = tagged(backup.calls(), tag);
    List<Asked> outcomes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Asked a = asked.get(i);
      Result result = a == null ? null : a.result();
      if (result == null) {
        result = later.getOrDefault(i, new Result(Level.ERROR, -1, 1, "no answer"));
      }
      Question q =
          a == null
              ? new Question(
                  i, "", t0 + scenario.dueNanos(i) / 1000, scenario.vip(i), scenario.upgrades())
              : a.question();
      outcomes.add(new Asked(q, result));
    }
    if (scenario.upgrades()) {
      printSlowestAfterTheBurst(scenario, outcomes, primaryCalls, backupCalls, contestant);
    }
    printDuplicates(outcomes, primaryCalls, backupCalls, contestant);
    return figures(
        contestant.name(),
        scenario,
        t0,
        outcomes,
        primaryCalls,
        backupCalls,
        samples,
        ledgerEntries);
  }

  /** Until neither model got a call for 5 s (the last scenario's retries are over). */
  private static void quiet(FakeModel primary, FakeModel backup) {
    int[] last = {-1};
    PeerContestants.waitAtMost(
        Duration.ofMinutes(2),
        Duration.ofSeconds(5),
        () -> {
          int now = primary.calls().size() + backup.calls().size();
          boolean same = now == last[0];
          last[0] = now;
          return same;
        });
  }

  private static void fault(FakeModel model, String change) {
    try {
      String root = model.baseUrl().substring(0, model.baseUrl().length() - "/v1".length());
      HttpResponse<Void> response =
          PeerContestants.HTTP.send(
              HttpRequest.newBuilder(URI.create(root + "/_faults?" + change))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() != 204) {
        throw new IllegalStateException("fault " + change + ": " + response.statusCode());
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<ModelCall> tagged(List<ModelCall> calls, String tag) {
    List<ModelCall> mine = new ArrayList<>();
    for (ModelCall call : calls) {
      Matcher m = call.userMessage() == null ? null : TAG.matcher(call.userMessage());
      if (m != null && m.find() && m.group(2).equals(tag)) {
        mine.add(call);
      }
    }
    return mine;
  }

  private static int questionOf(ModelCall call) {
    Matcher m = TAG.matcher(call.userMessage());
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  static Figures figures(
      String contestant,
      Scenario scenario,
      long t0,
      List<Asked> outcomes,
      List<ModelCall> primary,
      List<ModelCall> backup,
      Map<Integer, long[]> samples,
      Long ledgerEntries) {
    long patience = PeerContestants.PATIENCE.toNanos() / 1000;
    int answered = 0;
    int answered15 = 0;
    int answered30 = 0;
    int full = 0;
    int fallback = 0;
    int tickets = 0;
    int errors = 0;
    int vips = 0;
    int vipsByModel = 0;
    int upgrades = 0;
    List<Double> seconds = new ArrayList<>();
    List<Double> firstAnswers = new ArrayList<>(); // every question offered; never = infinity
    int span =
        scenario.seconds()
            + (int) (scenario.upgrades() ? UPGRADE_WAIT : PeerContestants.PATIENCE).toSeconds()
            + 1;
    int[] fullAt = new int[span];
    int[] fallbackAt = new int[span];
    int[] errorAt = new int[span];
    int[] upgradeAt = new int[span];
    int[] waiting = new int[span];
    for (Asked a : outcomes) {
      Result r = a.result();
      long offered = a.question().offeredMicros();
      long took = r.firstMicros() < 0 ? Long.MAX_VALUE : r.firstMicros() - offered;
      boolean inTime = took <= patience;
      boolean answer = r.level() == Level.FULL || r.level() == Level.FALLBACK;
      int offeredAt = (int) ((offered - t0) / 1_000_000);
      int doneAt =
          r.firstMicros() < 0 || !inTime
              ? span
              : (int) Math.min(span, (r.firstMicros() - t0) / 1_000_000);
      for (int s = Math.max(0, offeredAt); s < Math.min(span, doneAt); s++) {
        waiting[s]++;
      }
      firstAnswers.add(answer && r.firstMicros() >= 0 ? took / 1e6 : Double.POSITIVE_INFINITY);
      if (r.upgraded()) {
        upgrades++;
        upgradeAt[secondOf(r.upgradeMicros(), t0, span)]++;
      }
      if (a.question().vip()) {
        vips++;
        if (byModelInTime(a, patience)) {
          vipsByModel++;
        }
      }
      switch (r.level()) {
        case FULL, FALLBACK -> {
          if (inTime) {
            answered++;
            answered15 += took <= 15_000_000 ? 1 : 0;
            answered30 += took <= 30_000_000 ? 1 : 0;
            seconds.add(took / 1e6);
            if (r.level() == Level.FULL) {
              full++;
              fullAt[Math.min(span - 1, doneAt)]++;
            } else {
              fallback++;
              fallbackAt[Math.min(span - 1, doneAt)]++;
            }
          } else {
            errors++; // an answer after the customer gave up is no answer
          }
        }
        case TICKET -> tickets++;
        case ERROR -> {
          errors++;
          if (r.firstMicros() > 0) {
            errorAt[secondOf(r.firstMicros(), t0, span)]++;
          }
        }
      }
    }
    int[][] primaryAt = byStatus(primary, t0, span);
    int[][] backupAt = byStatus(backup, t0, span);
    int refused = 0;
    int failed = 0;
    int ok = 0;
    java.util.Set<Integer> answeredByModel = new java.util.HashSet<>();
    for (List<ModelCall> calls : List.of(primary, backup)) {
      for (ModelCall call : calls) {
        if (call.status() == 429) {
          refused++;
        } else if (call.status() == 200) {
          ok++;
          answeredByModel.add(questionOf(call));
        } else {
          failed++;
        }
      }
    }
    List<Second> timeline = new ArrayList<>();
    long peakRss = 0;
    long peakThreads = 0;
    for (int s = 0; s < span; s++) {
      long[] sample = samples.getOrDefault(s, new long[] {-1, 0, 0});
      peakRss = Math.max(peakRss, sample[1]);
      peakThreads = Math.max(peakThreads, sample[2]);
      timeline.add(
          new Second(
              s,
              fullAt[s],
              fallbackAt[s],
              errorAt[s],
              upgradeAt[s],
              primaryAt[0][s],
              primaryAt[1][s],
              primaryAt[2][s],
              backupAt[0][s],
              backupAt[1][s],
              waiting[s],
              sample[0],
              sample[1],
              sample[2]));
    }
    int offered = outcomes.size();
    int calls = primary.size() + backup.size();
    // a delivered model answer is a first answer by a model or an upgrade, in time or not: the
    // calls beyond them answered nobody
    int modelAnswers = full + upgrades;
    return new Figures(
        contestant,
        scenario.id(),
        offered,
        answered,
        answered15,
        answered30,
        percentileOrNever(firstAnswers, 0.50),
        percentileOrNever(firstAnswers, 0.99),
        full,
        fallback,
        tickets,
        errors,
        BenchFigures.percentile(seconds, 0.50),
        BenchFigures.percentile(seconds, 0.95),
        BenchFigures.percentile(seconds, 0.99),
        vips,
        vipsByModel,
        upgrades,
        calls,
        busy(scenario, primary, t0),
        refused,
        failed,
        failed + Math.max(0, ok - modelAnswers),
        offered == 0 ? 0 : Math.round(calls * 100.0 / offered) / 100.0,
        ok - answeredByModel.size(),
        ledgerEntries,
        peakRss,
        peakThreads,
        scenario.upgrades() ? burst(scenario, outcomes, primary, backup, patience) : null,
        timeline);
  }

  /**
   * How busy the primary was while questions were offered: the calls it took (all but its 429s) in
   * that time, as a percentage of what its quota allows in it.
   */
  static double busy(Scenario scenario, List<ModelCall> primary, long t0) {
    long end = t0 + scenario.seconds() * 1_000_000L;
    long taken =
        primary.stream()
            .filter(c -> c.status() != 429 && c.epochMicros() >= t0 && c.epochMicros() < end)
            .count();
    return Math.round(1000.0 * taken / (QUOTA * scenario.seconds())) / 10.0;
  }

  /** The burst scenario's figures: quick answers and their upgrades; the questions after it. */
  private static BurstFigures burst(
      Scenario scenario,
      List<Asked> outcomes,
      List<ModelCall> primary,
      List<ModelCall> backup,
      long patience) {
    long counted = UPGRADE_COUNTED.toNanos() / 1000;
    int burstQuestions = 0;
    int quick = 0;
    int upgraded = 0;
    int after = 0;
    java.util.Set<Integer> afterQuestions = new java.util.HashSet<>();
    List<Double> afterByModel = new ArrayList<>();
    long burstEnd = 0;
    long caughtUp = 0;
    for (Asked a : outcomes) {
      if (scenario.phaseOf(a.question().n()) == 0) {
        burstEnd = Math.max(burstEnd, a.question().offeredMicros());
        long first = a.result().firstMicros();
        caughtUp =
            first < 0 || caughtUp == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(caughtUp, first);
      }
    }
    int afterCaughtUp = 0;
    List<Double> afterCaughtUpByModel = new ArrayList<>();
    for (Asked a : outcomes) {
      Result r = a.result();
      long offered = a.question().offeredMicros();
      if (scenario.phaseOf(a.question().n()) == 0) {
        burstQuestions++;
        if (r.level() == Level.FALLBACK && r.firstMicros() >= 0) {
          quick++;
          if (r.upgraded() && r.upgradeMicros() - offered <= counted) {
            upgraded++;
          }
        }
      } else {
        after++;
        afterQuestions.add(a.question().n());
        boolean caughtUpBefore = offered >= caughtUp;
        afterCaughtUp += caughtUpBefore ? 1 : 0;
        if (byModelInTime(a, patience)) {
          afterByModel.add((r.modelAnswerMicros() - offered) / 1e6);
          if (caughtUpBefore) {
            afterCaughtUpByModel.add((r.modelAnswerMicros() - offered) / 1e6);
          }
        }
      }
    }
    List<Double> latency = new ArrayList<>();
    for (List<ModelCall> calls : List.of(primary, backup)) {
      for (ModelCall call : calls) {
        if (call.status() == 200 && afterQuestions.contains(questionOf(call))) {
          latency.add(call.delayMillis() / 1000.0);
        }
      }
    }
    return new BurstFigures(
        burstQuestions,
        quick,
        upgraded,
        after,
        afterByModel.size(),
        afterByModel.isEmpty() ? null : BenchFigures.percentile(afterByModel, 0.99),
        latency.isEmpty() ? null : BenchFigures.percentile(latency, 0.99),
        caughtUp == Long.MAX_VALUE ? null : (caughtUp - burstEnd) / 1e6,
        afterCaughtUp,
        afterCaughtUpByModel.size(),
        afterCaughtUpByModel.isEmpty()
            ? null
            : BenchFigures.percentile(afterCaughtUpByModel, 0.99));
  }

  /**
   * The five questions after the burst that waited longest for a model's answer, with when they
   * were offered (after the burst's last question) and their first answer: where the p99 comes
   * from.
   */
  private static void printSlowestAfterTheBurst(
      Scenario scenario,
      List<Asked> outcomes,
      List<ModelCall> primary,
      List<ModelCall> backup,
      Contestant contestant) {
    Map<Integer, ModelCall> answeredCall = new java.util.HashMap<>();
    for (List<ModelCall> calls : List.of(primary, backup)) {
      for (ModelCall call : calls) {
        if (call.status() == 200) {
          answeredCall.merge(
              questionOf(call), call, (a, b) -> a.epochMicros() <= b.epochMicros() ? a : b);
        }
      }
    }
    long burstEnd =
        outcomes.stream()
            .filter(a -> scenario.phaseOf(a.question().n()) == 0)
            .mapToLong(a -> a.question().offeredMicros())
            .max()
            .orElse(0);
    outcomes.stream()
        .filter(a -> scenario.phaseOf(a.question().n()) > 0)
        .sorted(
            java.util.Comparator.comparingLong(
                    (Asked a) -> {
                      long at = a.result().modelAnswerMicros();
                      return at < 0 ? Long.MAX_VALUE : at - a.question().offeredMicros();
                    })
                .reversed())
        .limit(5)
        .forEach(
            a -> {
              long offered = a.question().offeredMicros();
              Result r = a.result();
              System.out.printf(
                  "[peers] after the burst: #%d offered %.2f s after its last question, first"
                      + " answer %s after %.2f s, a model's after %s s (%s)%n",
                  a.question().n(),
                  (offered - burstEnd) / 1e6,
                  r.level(),
                  (r.firstMicros() - offered) / 1e6,
                  r.modelAnswerMicros() < 0
                      ? "never"
                      : String.format("%.2f", (r.modelAnswerMicros() - offered) / 1e6),
                  callTimes(answeredCall.get(a.question().n()), offered));
              System.out.println("[peers]   " + contestant.timeline(a.question().n(), offered));
            });
  }

  /**
   * The questions a model answered more than once, with their timelines: where a duplicate came
   * from.
   */
  private static void printDuplicates(
      List<Asked> outcomes,
      List<ModelCall> primary,
      List<ModelCall> backup,
      Contestant contestant) {
    Map<Integer, List<ModelCall>> answered = new java.util.TreeMap<>();
    for (List<ModelCall> calls : List.of(primary, backup)) {
      for (ModelCall call : calls) {
        if (call.status() == 200) {
          answered.computeIfAbsent(questionOf(call), n -> new ArrayList<>()).add(call);
        }
      }
    }
    for (Asked a : outcomes) {
      List<ModelCall> calls = answered.getOrDefault(a.question().n(), List.of());
      if (calls.size() > 1) {
        long offered = a.question().offeredMicros();
        System.out.printf(
            "[peers] duplicate: #%d, first answer %s after %.2f s; answered calls received after %s%n",
            a.question().n(),
            a.result().level(),
            (a.result().firstMicros() - offered) / 1e6,
            calls.stream()
                .map(c -> String.format("%.2f s", (c.epochMicros() - offered) / 1e6))
                .toList());
        System.out.println("[peers]   " + contestant.timeline(a.question().n(), offered));
      }
    }
  }

  /** When the model received the question's first answered call and how long it took. */
  private static String callTimes(ModelCall call, long offeredMicros) {
    return call == null
        ? "no answered call"
        : String.format(
            "model call received after %.2f s, took %.2f s",
            (call.epochMicros() - offeredMicros) / 1e6, call.delayMillis() / 1000.0);
  }

  /** A model answered the question, first or by an upgrade, within the customer's patience. */
  private static boolean byModelInTime(Asked a, long patienceMicros) {
    long at = a.result().modelAnswerMicros();
    return at >= 0 && at - a.question().offeredMicros() <= patienceMicros;
  }

  /** The second of the run a time falls in, within [0, span). */
  private static int secondOf(long micros, long t0, int span) {
    return (int) Math.min(span - 1, Math.max(0, (micros - t0) / 1_000_000));
  }

  /** A percentile of values that may be infinite (never): null when it falls on one. */
  static Double percentileOrNever(List<Double> values, double p) {
    if (values.isEmpty()) {
      return null;
    }
    List<Double> sorted = new ArrayList<>(values);
    java.util.Collections.sort(sorted);
    double value = sorted.get(Math.min(sorted.size() - 1, (int) (sorted.size() * p)));
    return Double.isInfinite(value) ? null : BenchFigures.round(value);
  }

  /** Calls per second: [0] answered, [1] refused (429), [2] failed (any other status). */
  private static int[][] byStatus(List<ModelCall> calls, long t0, int span) {
    int[][] at = new int[3][span];
    for (ModelCall call : calls) {
      int s = (int) ((call.epochMicros() - t0) / 1_000_000);
      if (s < 0 || s >= span) {
        continue;
      }
      at[call.status() == 200 ? 0 : call.status() == 429 ? 1 : 2][s]++;
    }
    return at;
  }

  /** Resident memory (MB) and threads of processes, summed, from /proc. */
  static final class ProcessMemory {
    private ProcessMemory() {}

    static long[] of(List<Long> pids) {
      long rssKb = 0;
      long threads = 0;
      for (long pid : pids) {
        try {
          for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
              rssKb += Long.parseLong(line.replaceAll("[^0-9]", ""));
            } else if (line.startsWith("Threads:")) {
              threads += Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
          }
        } catch (java.io.IOException | NumberFormatException e) {
          // the process ended between the listing and the read
        }
      }
      return new long[] {rssKb / 1024, threads};
    }
  }

  static Map<String, Object> asMap(Scenario s) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("id", s.id());
    map.put("title", s.title());
    map.put("phases", s.phases());
    map.put("seconds", s.seconds());
    map.put("questions", s.count());
    map.put("vipEvery", s.vipEvery());
    map.put("upgrades", s.upgrades());
    map.put("eventFrom", s.eventFrom());
    map.put("eventTo", s.eventTo());
    map.put("fault", s.faultOn());
    map.put("retrying", s.retrying());
    return map;
  }
}
