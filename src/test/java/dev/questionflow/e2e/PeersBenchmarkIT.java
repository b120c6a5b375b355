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
 * a time: overload (5x the quota), an outage (the primary answers 500 for 30 s at 80 % of the
 * quota), a slow model (20 s for 30 s) and a retry storm (the slow model with back ends that retry
 * a failed or slow request once). {@code bin/bench peers [--quick]}; figures in {@link
 * PeersReport}.
 */
@EnabledIfSystemProperty(named = "flow.bench", matches = "true")
class PeersBenchmarkIT {

  static final boolean QUICK = Boolean.getBoolean("peers.quick");
  static final double QUOTA = 5;
  static final double BACKUP_QUOTA = 2;
  private static final String LATENCY = "1000-3000";
  private static final Pattern TAG = Pattern.compile("#(\\d+) \\(([a-z-]+-[0-9a-f]{6})\\)");

  /**
   * A storm: questions per second for {@code seconds}, and the primary's fault from {@code
   * eventFrom} to {@code eventTo} (seconds from the start; none when {@code faultOn} is null).
   */
  record Scenario(
      String id,
      String title,
      double rate,
      int seconds,
      int eventFrom,
      int eventTo,
      String faultOn,
      String faultOff,
      boolean retrying) {}

  static List<Scenario> scenarios() {
    int scale = QUICK ? 4 : 1;
    int steady = 70 / scale;
    int from = 20 / scale;
    int to = 50 / scale;
    return List.of(
        new Scenario(
            "overload", "Overload: 5x the quota", QUOTA * 5, 60 / scale, 0, 0, null, null, false),
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

  /** One second of a run: answers by level, model calls by status, queue, processes. */
  record Second(
      int t,
      int full,
      int fallback,
      int errors,
      int primaryOk,
      int primaryRefused,
      int primaryFailed,
      int backupOk,
      int backupRefused,
      int waiting,
      long contestantQueue,
      long rssMb,
      long threads) {}

  /** A contestant's figures in a scenario. */
  record Figures(
      String contestant,
      String scenario,
      int offered,
      int answered60s,
      int full60s,
      int fallback60s,
      int tickets,
      int errors,
      double p50,
      double p95,
      double p99,
      int modelCalls,
      int refused,
      int failed,
      int wasted,
      double callsPerQuestion,
      int duplicates,
      long peakRssMb,
      long peakThreads,
      List<Second> timeline) {}

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
          for (Scenario scenario : scenarios()) {
            Figures figures = run(contestant, scenario, primary, backup, questions);
            System.out.println(PeersReport.line(figures));
            all.add(figures);
          }
        }
      }
    }
    double minutes = (System.nanoTime() - started) / 60e9;
    PeersReport.write(all, scenarios(), minutes, Boolean.getBoolean("peers.docs"));
    assertThat(all).hasSize(contestants.size() * scenarios().size());
  }

  private static Contestant start(String name, FakeModel primary, FakeModel backup)
      throws Exception {
    List<String> jvm = List.of("-Xmx512m", "-XX:TieredStopAtLevel=1");
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
    int count = (int) Math.round(scenario.rate() * scenario.seconds());
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
    // open loop: question i is offered at t0 + i / rate, whatever the contestant is doing
    for (int i = 0; i < count; i++) {
      long due = t0Nanos + (long) (i * 1e9 / scenario.rate());
      LockSupport.parkNanos(due - System.nanoTime());
      String text = texts.get(i % texts.size()) + " #" + i + " (" + tag + ")";
      Question question = new Question(i, text, BenchFigures.nowMicros());
      pending.add(
          contestant
              .ask(question, scenario.retrying())
              .thenAccept(result -> asked.put(question.n(), new Asked(question, result))));
    }
    long deadline = BenchFigures.nowMicros() + PeerContestants.PATIENCE.toNanos() / 1000;
    try {
      CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
          .get(PeerContestants.PATIENCE.toSeconds() + 10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      // the unfinished are counted as errors below
    }
    Map<Integer, Result> later = contestant.collect(deadline);
    clock.shutdownNow();
    fault(primary, "recover");
    fault(primary, "latency-ms=" + LATENCY);
    // settle: nothing of this scenario left in the contestant before the next begins
    contestant.settle();
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
          a == null ? new Question(i, "", t0 + (long) (i * 1e6 / scenario.rate())) : a.question();
      outcomes.add(new Asked(q, result));
    }
    return figures(contestant.name(), scenario, t0, outcomes, primaryCalls, backupCalls, samples);
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
      Map<Integer, long[]> samples) {
    long patience = PeerContestants.PATIENCE.toNanos() / 1000;
    int answered = 0;
    int full = 0;
    int fallback = 0;
    int tickets = 0;
    int errors = 0;
    List<Double> seconds = new ArrayList<>();
    int span = scenario.seconds() + (int) PeerContestants.PATIENCE.toSeconds() + 1;
    int[] fullAt = new int[span];
    int[] fallbackAt = new int[span];
    int[] errorAt = new int[span];
    int[] waiting = new int[span];
    for (Asked a : outcomes) {
      Result r = a.result();
      long took =
          r.doneMicros() < 0 ? Long.MAX_VALUE : r.doneMicros() - a.question().offeredMicros();
      boolean inTime = took <= patience;
      int offeredAt = (int) ((a.question().offeredMicros() - t0) / 1_000_000);
      int doneAt =
          r.doneMicros() < 0 || !inTime
              ? span
              : (int) Math.min(span, (r.doneMicros() - t0) / 1_000_000);
      for (int s = Math.max(0, offeredAt); s < Math.min(span, doneAt); s++) {
        waiting[s]++;
      }
      switch (r.level()) {
        case FULL, FALLBACK -> {
          if (inTime) {
            answered++;
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
          if (r.doneMicros() > 0) {
            errorAt[Math.min(span - 1, (int) Math.max(0, (r.doneMicros() - t0) / 1_000_000))]++;
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
    return new Figures(
        contestant,
        scenario.id(),
        offered,
        answered,
        full,
        fallback,
        tickets,
        errors,
        BenchFigures.percentile(seconds, 0.50),
        BenchFigures.percentile(seconds, 0.95),
        BenchFigures.percentile(seconds, 0.99),
        calls,
        refused,
        failed,
        failed + Math.max(0, ok - full),
        BenchFigures.round(offered == 0 ? 0 : (double) calls / offered * 100) / 100,
        ok - answeredByModel.size(),
        peakRss,
        peakThreads,
        timeline);
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
    map.put("questionsPerSecond", s.rate());
    map.put("seconds", s.seconds());
    map.put("eventFrom", s.eventFrom());
    map.put("eventTo", s.eventTo());
    map.put("fault", s.faultOn());
    map.put("retrying", s.retrying());
    return map;
  }
}
