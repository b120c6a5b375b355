package dev.questionflow.faq.bench;

import dev.questionflow.faq.FaqEmbeddingModel;
import dev.questionflow.faq.FaqEntry;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.FaqPacks;
import dev.questionflow.faq.KeywordFaqIndex;
import dev.questionflow.faq.SemanticFaqIndex;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Speed of {@link SemanticFaqIndex#best(String)} per embedding model, side by side in one run (the
 * machine is shared, so compare ratios): single-thread p50/p99 latency after warm-up, throughput
 * with 2 threads, and start-up with a stored index (pack load + index reuse + model load + first
 * match) measured in a fresh JVM.
 *
 * <pre>
 * mvn -B -q -pl faq-index test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.questionflow.faq.bench.MatchBenchmark \
 *     -Dexec.args="bge-small-en-v1.5-q all-minilm-l6-v2-q"        # default: all English models
 * </pre>
 *
 * The first run builds the stored indexes under {@code target/bench-index/<model>} (embeds the
 * ~10,000 BANKING77 phrasings: 1-3 min per model). {@code -Dbench.repeat=3} (default) keeps the
 * best of 3 measurement rounds.
 */
public final class MatchBenchmark {

  private static final int WARMUP = 300;
  private static final int SINGLE = 1000;
  private static final int THROUGHPUT = 2000;

  private MatchBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("--startup")) {
      startupChild(FaqEmbeddingModel.fromId(args[1]));
      return;
    }
    List<FaqEmbeddingModel> models = new ArrayList<>();
    for (String a : args) {
      models.add(FaqEmbeddingModel.fromId(a));
    }
    if (models.isEmpty()) {
      for (FaqEmbeddingModel m : FaqEmbeddingModel.values()) {
        if (m.language().equals("en") && m.available()) {
          models.add(m);
        }
      }
    }
    int repeat = Integer.getInteger("bench.repeat", 3);
    FaqPack pack = FaqPacks.loadFromClasspath("banking77");
    List<String> questions = questions(pack);
    System.out.printf(
        "MatchBenchmark: %d cores, load average at start %s, %d questions, best of %d%n",
        Runtime.getRuntime().availableProcessors(), loadAverage(), questions.size(), repeat);
    Map<String, double[]> results = new LinkedHashMap<>();
    try (KeywordFaqIndex kw = KeywordFaqIndex.build(pack)) {
      results.put("keyword (BM25 only)", measure(q -> kw.best(q), questions, repeat));
    }
    for (FaqEmbeddingModel model : models) {
      Path dir = Path.of("target", "bench-index", model.id());
      long b0 = System.nanoTime();
      try (SemanticFaqIndex idx = SemanticFaqIndex.open(pack, model, dir)) {
        long buildMs = (System.nanoTime() - b0) / 1_000_000;
        System.out.printf("%s: open/build %d ms%n", model.id(), buildMs);
        double[] r = measure(q -> idx.best(q), questions, repeat);
        double startup = Double.MAX_VALUE;
        for (int i = 0; i < Math.max(1, Math.min(repeat, 3)); i++) {
          startup = Math.min(startup, startupInChildJvm(model));
        }
        results.put(model.id(), new double[] {r[0], r[1], r[2], startup});
      }
    }
    double[] ref = null;
    System.out.printf("%nload average at end %s%n", loadAverage());
    System.out.printf(
        "%-22s %9s %9s %12s %11s %9s %9s%n",
        "matcher", "p50 ms", "p99 ms", "2-thread/s", "startup ms", "p50 x", "thru x");
    for (Map.Entry<String, double[]> e : results.entrySet()) {
      double[] r = e.getValue();
      if (ref == null && !e.getKey().startsWith("keyword")) {
        ref = r;
      }
      System.out.printf(
          "%-22s %9.2f %9.2f %12.0f %11s %9s %9s%n",
          e.getKey(),
          r[0],
          r[1],
          r[2],
          r.length > 3 ? String.format("%.0f", r[3]) : "-",
          ref == null ? "-" : String.format("%.2f", r[0] / ref[0]),
          ref == null ? "-" : String.format("%.2f", r[2] / ref[2]));
    }
    System.exit(0);
  }

  interface Matcher {
    Object match(String q);
  }

  /** [p50 ms, p99 ms, matches/s with 2 threads], best of {@code repeat} rounds. */
  private static double[] measure(Matcher m, List<String> questions, int repeat)
      throws InterruptedException {
    for (int i = 0; i < WARMUP; i++) {
      m.match(questions.get(i % questions.size()));
    }
    double p50 = Double.MAX_VALUE;
    double p99 = Double.MAX_VALUE;
    double thru = 0;
    for (int round = 0; round < repeat; round++) {
      long[] t = new long[SINGLE];
      for (int i = 0; i < SINGLE; i++) {
        String q = questions.get((i * 7 + round) % questions.size());
        long s = System.nanoTime();
        m.match(q);
        t[i] = System.nanoTime() - s;
      }
      Arrays.sort(t);
      p50 = Math.min(p50, t[SINGLE / 2] / 1e6);
      p99 = Math.min(p99, t[(int) (SINGLE * 0.99) - 1] / 1e6);
      AtomicInteger next = new AtomicInteger();
      Thread[] threads = new Thread[2];
      long s = System.nanoTime();
      for (int k = 0; k < threads.length; k++) {
        threads[k] =
            new Thread(
                () -> {
                  int i;
                  while ((i = next.getAndIncrement()) < THROUGHPUT) {
                    m.match(questions.get((i * 13 + 5) % questions.size()));
                  }
                });
        threads[k].start();
      }
      for (Thread th : threads) {
        th.join();
      }
      thru = Math.max(thru, THROUGHPUT / ((System.nanoTime() - s) / 1e9));
    }
    return new double[] {p50, p99, thru};
  }

  /**
   * Real customer-like questions: a deterministic sample of the pack's phrasings plus a few
   * off-topic ones.
   */
  private static List<String> questions(FaqPack pack) {
    List<String> out = new ArrayList<>();
    for (FaqEntry e : pack.entries()) {
      for (int i = 0; i < e.phrasings().size(); i += 20) {
        out.add(e.phrasings().get(i));
      }
    }
    out.addAll(
        List.of(
            "what's the weather in paris tomorrow",
            "play some jazz music",
            "how many calories are in an apple",
            "book a table for two at 7pm",
            "what is the capital of peru"));
    return out;
  }

  private static double startupInChildJvm(FaqEmbeddingModel model) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java, "-cp", classPath(), MatchBenchmark.class.getName(), "--startup", model.id())
            .redirectErrorStream(true)
            .start();
    double ms = Double.NaN;
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("STARTUP_MS ")) {
          ms = Double.parseDouble(line.substring(11).trim());
        }
      }
    }
    p.waitFor();
    return ms;
  }

  /**
   * The test class path, also under {@code mvn exec:java} (a URLClassLoader inside the Maven JVM).
   */
  private static String classPath() {
    if (MatchBenchmark.class.getClassLoader() instanceof java.net.URLClassLoader u) {
      List<String> parts = new ArrayList<>();
      for (java.net.URL url : u.getURLs()) {
        try {
          parts.add(Path.of(url.toURI()).toString());
        } catch (Exception e) {
          // skip
        }
      }
      if (!parts.isEmpty()) {
        return String.join(java.io.File.pathSeparator, parts);
      }
    }
    return System.getProperty("java.class.path");
  }

  /**
   * In a fresh JVM: load the pack, open the stored index (must be reused), load the model, answer
   * once.
   */
  private static void startupChild(FaqEmbeddingModel model) {
    long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
    long t0 = System.nanoTime();
    FaqPack pack = FaqPacks.loadFromClasspath("banking77");
    try (SemanticFaqIndex idx =
        SemanticFaqIndex.open(pack, model, Path.of("target", "bench-index", model.id()))) {
      idx.best("I still have not received my new card");
      long ms = (System.nanoTime() - t0) / 1_000_000;
      System.out.println("STARTUP_MS " + ms);
      System.out.println("JVM_TOTAL_MS " + (System.currentTimeMillis() - jvmStart));
    }
    System.exit(0);
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (Exception e) {
      return String.format(
          "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }
}
