package dev.questionflow.faq.cli;

import dev.questionflow.faq.FaqEvaluation;
import dev.questionflow.faq.FaqMatcher;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.MatchCache;
import dev.questionflow.faq.SemanticFaqIndex;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code bin/faq bench}: how fast the app's matcher answers ({@code best}, the FAQ-level answer),
 * on the stored index the app uses. Warm-up until the JIT settles, then single-thread latency over
 * distinct held-out questions with the match cache off (the path every new question takes),
 * throughput with {@code --threads} threads, and the latency of a repeat served by the match cache.
 */
final class BenchCommand {

  /** Warm-up rounds of this many matches, until two rounds in a row move the p50 less than 5 %. */
  private static final int WARMUP_ROUND = 200;

  private static final int WARMUP_MAX_ROUNDS = 15;
  private static final double SETTLED = 0.05;

  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private BenchCommand() {}

  static void run(FaqPack pack, FaqCli.Options options, PrintStream out, PrintStream err) {
    Path file = options.questions != null ? options.questions : FaqCli.defaultQuestions(pack);
    if (file == null) {
      throw new FaqCli.UsageException("bench needs --questions FILE.tsv (no held-out file found)");
    }
    List<String> questions =
        List.copyOf(new LinkedHashSet<>(FaqEvaluation.texts(FaqEvaluation.readLabeled(file))));
    long started = System.nanoTime();
    try (Matchers.Opened opened = Matchers.open(pack, options.level, options.indexDir, err)) {
      FaqMatcher matcher = opened.matcher();
      out.printf(
          Locale.ROOT,
          "bench: pack %s, level %s%s, %,d distinct questions from %s; index under %s opened in"
              + " %.1f s; %d cores, load average %.2f%n",
          pack.id(),
          matcher.level(),
          matcher instanceof SemanticFaqIndex s ? " (" + s.modelId() + ")" : "",
          questions.size(),
          FaqCli.relativeToRepo(file),
          FaqCli.relativeToRepo(options.indexDir),
          (System.nanoTime() - started) / 1e9,
          Runtime.getRuntime().availableProcessors(),
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      warmUp(matcher, questions, out);
      Timings single = timeEach(matcher, questions);
      out.printf(
          Locale.ROOT,
          "uncached, 1 thread:   %s, CPU %.2f ms/match (%,d matches, each question once)%n",
          single.latency(),
          single.cpuMillisPerMatch(),
          single.matches());
      Timings parallel = throughput(matcher, questions, options.threads, options.seconds);
      out.printf(
          Locale.ROOT,
          "uncached, %d threads:  %.1f matches/s (%,d in %.1f s), %s, CPU %.2f ms/match%n",
          options.threads,
          parallel.matches() / parallel.seconds(),
          parallel.matches(),
          parallel.seconds(),
          parallel.latency(),
          parallel.cpuMillisPerMatch());
      if (matcher instanceof SemanticFaqIndex semantic) {
        cached(semantic, questions, out);
      }
      out.printf(
          Locale.ROOT,
          "load average at the end %.2f%n",
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }

  private static void warmUp(FaqMatcher matcher, List<String> questions, PrintStream out) {
    List<String> p50s = new ArrayList<>();
    double previous = Double.NaN;
    int settledRounds = 0;
    int round = 0;
    while (round < WARMUP_MAX_ROUNDS && settledRounds < 2) {
      List<String> slice = new ArrayList<>(WARMUP_ROUND);
      for (int i = 0; i < WARMUP_ROUND; i++) {
        slice.add(questions.get((round * WARMUP_ROUND + i) % questions.size()));
      }
      double p50 = timeEach(matcher, slice).percentile(0.50);
      settledRounds = Math.abs(p50 - previous) < SETTLED * previous ? settledRounds + 1 : 0;
      previous = p50;
      p50s.add(String.format(Locale.ROOT, "%.2f", p50));
      round++;
    }
    out.printf(
        Locale.ROOT,
        "warm-up: %,d matches in %d rounds%s (p50 ms per round: %s)%n",
        round * WARMUP_ROUND,
        round,
        settledRounds >= 2 ? ", until the p50 moved < 5 % twice" : ", not settled",
        String.join(" ", p50s));
  }

  /** The cache's hit path: every question once (misses), then each again (hits). */
  private static void cached(SemanticFaqIndex index, List<String> questions, PrintStream out) {
    index.withMatchCache(questions.size());
    try {
      for (String q : questions) {
        index.best(q);
      }
      // a repeat as customers type it again: other spacing (the same key in every language)
      List<String> repeats = questions.stream().map(q -> " " + q.replace(" ", "  ") + " ").toList();
      Timings hits = timeEach(index, repeats);
      MatchCache.Stats stats = index.matchCacheStats().orElseThrow();
      out.printf(
          Locale.ROOT,
          "cached repeats, 1 thread: %s (%,d repeats; cache hit ratio %.1f %%, %,d hits, %,d"
              + " misses)%n",
          hits.latency(),
          hits.matches(),
          100 * stats.hitRatio(),
          stats.hits(),
          stats.misses());
    } finally {
      index.withMatchCache(0);
    }
  }

  /** One match after the other on this thread, each timed by the clock and by its CPU time. */
  private static Timings timeEach(FaqMatcher matcher, List<String> questions) {
    long[] nanos = new long[questions.size()];
    long[] cpuNanos = new long[questions.size()];
    long t0 = System.nanoTime();
    for (int i = 0; i < nanos.length; i++) {
      long c = CPU.getCurrentThreadCpuTime();
      long s = System.nanoTime();
      matcher.best(questions.get(i));
      nanos[i] = System.nanoTime() - s;
      cpuNanos[i] = CPU.getCurrentThreadCpuTime() - c;
    }
    return new Timings(nanos, (System.nanoTime() - t0) / 1e9, Arrays.stream(cpuNanos).sum())
        .withCpu(cpuNanos);
  }

  private static Timings throughput(
      FaqMatcher matcher, List<String> questions, int threads, double seconds) {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    List<long[]> perThread = new ArrayList<>();
    AtomicLong cpu = new AtomicLong();
    List<Thread> workers = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      int offset = t * questions.size() / threads;
      perThread.add(null);
      int slot = t;
      Thread worker =
          new Thread(
              () -> {
                long cpu0 = CPU.getCurrentThreadCpuTime();
                long[] nanos = new long[1024];
                int n = 0;
                while (System.nanoTime() < deadline) {
                  long s = System.nanoTime();
                  matcher.best(questions.get((offset + n) % questions.size()));
                  if (n == nanos.length) {
                    nanos = Arrays.copyOf(nanos, 2 * n);
                  }
                  nanos[n++] = System.nanoTime() - s;
                }
                cpu.addAndGet(CPU.getCurrentThreadCpuTime() - cpu0);
                synchronized (perThread) {
                  perThread.set(slot, Arrays.copyOf(nanos, n));
                }
              },
              "faq-bench-" + t);
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      try {
        worker.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    long[] all;
    synchronized (perThread) {
      all = perThread.stream().flatMapToLong(Arrays::stream).toArray();
    }
    return new Timings(all, elapsed, cpu.get());
  }

  /**
   * Per-match wall times (ns), the elapsed seconds, the CPU time of the matching threads, and per
   * match CPU times when measured on one thread (null otherwise): a wall-time tail without a CPU
   * time tail is the machine's other work, not the match.
   */
  private record Timings(long[] nanos, double seconds, long cpuNanos, long[] cpuPerMatch) {
    Timings(long[] nanos, double seconds, long cpuNanos) {
      this(nanos, seconds, cpuNanos, null);
    }

    Timings withCpu(long[] perMatch) {
      return new Timings(nanos, seconds, cpuNanos, perMatch);
    }

    int matches() {
      return nanos.length;
    }

    double percentile(double p) {
      return percentile(nanos, p);
    }

    private static double percentile(long[] values, double p) {
      long[] sorted = values.clone();
      Arrays.sort(sorted);
      int rank = (int) Math.ceil(p * sorted.length) - 1;
      return sorted[Math.max(0, Math.min(sorted.length - 1, rank))] / 1e6;
    }

    double cpuMillisPerMatch() {
      return cpuNanos / 1e6 / Math.max(1, nanos.length);
    }

    String latency() {
      String wall =
          String.format(
              Locale.ROOT,
              "p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms",
              percentile(0.50),
              percentile(0.90),
              percentile(0.99),
              percentile(1.0));
      return cpuPerMatch == null
          ? wall
          : wall
              + String.format(
                  Locale.ROOT,
                  " (CPU time p50 %.3f ms, p99 %.3f ms)",
                  percentile(cpuPerMatch, 0.50),
                  percentile(cpuPerMatch, 0.99));
    }
  }
}
