package dev.questionflow.faq.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.questionflow.faq.FaqEvaluation;
import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import dev.questionflow.faq.FaqMatch;
import dev.questionflow.faq.FaqMatcher;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.FaqPacks;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code bin/faq}: match questions against a FAQ pack, or evaluate a matcher on a labelled file.
 *
 * <pre>
 *   bin/faq match --pack banking77 [--level semantic|keyword] [--index-dir DIR] &lt; questions.txt
 *   bin/faq eval  --pack banking77 --labeled FILE.tsv [--oos FILE.tsv ...] [--level semantic|keyword]
 * </pre>
 */
public final class FaqCli {

  private static final ObjectMapper JSON = new ObjectMapper();

  private FaqCli() {}

  public static void main(String[] args) {
    int status;
    try {
      status = run(args, System.out, System.err);
    } catch (UsageException e) {
      System.err.println("bin/faq: " + e.getMessage());
      System.err.println(USAGE);
      status = 2;
    }
    System.exit(status);
  }

  static final String USAGE =
      """
      usage: bin/faq match --pack PACK [--level semantic|keyword] [--index-dir DIR]   (questions on stdin, one per line)
             bin/faq eval  --pack PACK --labeled FILE.tsv [--oos FILE.tsv]... [--level semantic|keyword] [--index-dir DIR]
             bin/faq index --pack PACK [--level semantic|keyword] [--index-dir DIR]  (build or reuse the stored index)
        match prints one JSON object per input line, in input order: {"text","faqId","score","level"},
        faqId null when the matcher abstains. eval removes the labelled questions from the pack's phrasings
        before indexing, so they are unseen, and prints accuracy, abstention and the most confused pairs.""";

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      throw new UsageException("a command is needed");
    }
    Options options = Options.parse(args);
    FaqPack pack = FaqPacks.loadFromClasspath(options.pack);
    switch (args[0]) {
      case "match" -> {
        try (Matchers.Opened matcher = Matchers.open(pack, options.level, options.indexDir, err)) {
          match(matcher.matcher(), readLines(), out);
        }
        return 0;
      }
      case "index" -> {
        long started = System.nanoTime();
        try (Matchers.Opened matcher = Matchers.open(pack, options.level, options.indexDir, err)) {
          err.printf(
              "index for pack %s (%s) ready in %d ms%n",
              pack.id(), matcher.matcher().level(), (System.nanoTime() - started) / 1_000_000);
        }
        return 0;
      }
      case "eval" -> {
        if (options.labeled == null) {
          throw new UsageException("eval needs --labeled FILE.tsv");
        }
        List<LabeledQuestion> labeled = Evaluation.readLabeled(options.labeled);
        List<String> outOfScope = new ArrayList<>();
        for (Path oos : options.oos) {
          outOfScope.addAll(Evaluation.readTexts(oos));
        }
        FaqPack unseen = FaqEvaluation.withoutPhrasings(pack, FaqEvaluation.texts(labeled));
        long started = System.nanoTime();
        // a separate directory: the stored index of the full pack stays as it is
        try (Matchers.Opened matcher =
            Matchers.open(unseen, options.level, options.indexDir.resolve("eval"), err)) {
          FaqEvaluation.Report report =
              FaqEvaluation.evaluate(matcher.matcher(), labeled, outOfScope);
          out.printf(
              "pack %s, level %s, labelled %s (unseen: removed from the phrasings), out of scope %s%n",
              pack.id(), matcher.matcher().level(), options.labeled, options.oos);
          out.print(report.summary());
          out.printf(
              "evaluated in %d ms (index build or reuse included)%n",
              (System.nanoTime() - started) / 1_000_000);
        }
        return 0;
      }
      default -> throw new UsageException("unknown command " + args[0]);
    }
  }

  /** Matches in parallel on all cores but prints in input order. */
  private static void match(FaqMatcher matcher, List<String> lines, PrintStream out) {
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<String>> results = new ArrayList<>(lines.size());
      for (String line : lines) {
        results.add(pool.submit(() -> toJson(matcher, line)));
      }
      for (Future<String> result : results) {
        out.println(result.get());
      }
    } catch (Exception e) {
      throw new IllegalStateException("matching failed: " + e.getMessage(), e);
    } finally {
      pool.shutdownNow();
    }
  }

  private static String toJson(FaqMatcher matcher, String text) throws IOException {
    Optional<FaqMatch> best = matcher.best(text);
    ObjectNode node = JSON.createObjectNode();
    node.put("text", text);
    if (best.isPresent()) {
      node.put("faqId", best.get().faqId());
      node.put("score", round(best.get().score()));
    } else {
      node.putNull("faqId");
      List<FaqMatch> top = matcher.search(text, 1);
      node.put("score", top.isEmpty() ? 0.0 : round(top.get(0).score()));
    }
    node.put("level", matcher.level());
    return JSON.writeValueAsString(node);
  }

  private static double round(double score) {
    return Math.round(score * 10_000) / 10_000.0;
  }

  private static List<String> readLines() {
    try {
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      return in.lines().toList();
    } catch (UncheckedIOException e) {
      throw new IllegalStateException("cannot read stdin", e);
    }
  }

  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }

  /** Command-line options, parsed by hand: four flags do not justify a dependency. */
  static final class Options {
    String pack;
    String level = "semantic";
    Path indexDir = Path.of("data", "faq-index");
    Path labeled;
    final List<Path> oos = new ArrayList<>();

    static Options parse(String[] args) {
      Options options = new Options();
      for (int i = 1; i < args.length; i++) {
        String flag = args[i];
        if (i + 1 >= args.length) {
          throw new UsageException(flag + " needs a value");
        }
        String value = args[++i];
        switch (flag) {
          case "--pack" -> options.pack = value;
          case "--level" -> {
            if (!value.equals("semantic") && !value.equals("keyword")) {
              throw new UsageException("--level is semantic or keyword, not " + value);
            }
            options.level = value;
          }
          case "--index-dir" -> options.indexDir = Path.of(value);
          case "--labeled" -> options.labeled = existing(value);
          case "--oos" -> options.oos.add(existing(value));
          default -> throw new UsageException("unknown option " + flag);
        }
      }
      if (options.pack == null) {
        throw new UsageException("--pack is required");
      }
      return options;
    }

    private static Path existing(String value) {
      Path path = Path.of(value);
      if (!Files.isRegularFile(path)) {
        throw new UsageException("no such file: " + value);
      }
      return path;
    }
  }
}
