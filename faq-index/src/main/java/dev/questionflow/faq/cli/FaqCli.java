package dev.questionflow.faq.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.questionflow.faq.Calibrator;
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
 *   bin/faq learn-curve --pack banking77 [--level semantic|keyword] [--block 500]
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
    } catch (IllegalArgumentException e) { // a malformed input file
      System.err.println("bin/faq: " + e.getMessage());
      status = 2;
    }
    System.exit(status);
  }

  static final String USAGE =
      """
      usage: bin/faq match --pack PACK [--level semantic|keyword] [--index-dir DIR]   (questions on stdin, one per line)
             bin/faq eval  --pack PACK --labeled FILE.tsv [--oos FILE.tsv]... [--level semantic|keyword] [--index-dir DIR]
             bin/faq index --pack PACK [--level semantic|keyword] [--index-dir DIR]  (build or reuse the stored index)
             bin/faq calibrate --pack PACK [--oos FILE.tsv]... [--holdout FILE.tsv]... [--model ID]... [--folds 5 | --split FILE.tsv]
                               [--min-answered 0.995] [--keyword-oos-abstention 0.95] [--out FILE]
             bin/faq learn-curve --pack PACK [--level semantic|keyword] [--questions FILE.tsv] [--order shuffled|file]
                               [--block 500] [--start-phrasings 3] [--phrasing-stream N] [--out FILE.json]
             bin/faq bench --pack PACK [--level semantic|keyword] [--questions FILE.tsv] [--threads 2] [--seconds 10]
        match prints one JSON object per input line, in input order: {"text","faqId","score","level"},
        faqId null when the matcher abstains. eval removes the labelled questions from the pack's phrasings
        before indexing, so they are unseen, and prints accuracy, abstention and the most confused pairs.
        calibrate chooses the pack's tuned numbers by k-fold cross-validation on its phrasings without the
        --holdout files' texts, with --oos as out-of-scope training questions (default: the pack's own
        out_of_scope.txt, folded like the phrasings), and writes them (with the command and the folds' figures)
        to faq-index/packs/PACK/calibration.properties or --out. --split FILE.tsv replaces the folds with one
        split: its questions (phrasings of the pack) against the others; for a tuned encoder, its tune-heldout.tsv.
        learn-curve starts the level's matcher from the first --start-phrasings phrasings of each entry and
        replays unseen questions in order: each one abstained on or answered wrongly is filed as a phrasing
        of its true entry (the overlay staff replies use); prints the hit rate (correct answers / questions)
        per --block. Streams: --questions (default faq-index/eval/PACK-validation.tsv, removed from the pack
        first; shuffled with seed 42 unless --order file), then up to --phrasing-stream (default all, 0 = none)
        of the pack's other phrasings, shuffled with seed 42. Each stream starts from the same matcher.
        bench times best() on the stored index the app uses: warm-up until the JIT settles, single-thread
        latency over the distinct --questions (default as for learn-curve) with the match cache off, throughput
        with --threads for --seconds, and a repeat served by the match cache (semantic level).""";

  /** Runs one command; the exit status (0 ok, 2 usage or input error). */
  public static int run(String[] args, PrintStream out, PrintStream err) {
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
        List<LabeledQuestion> labeled = FaqEvaluation.readLabeled(options.labeled);
        List<String> outOfScope = new ArrayList<>();
        for (Path oos : options.oos) {
          outOfScope.addAll(FaqEvaluation.readTexts(oos));
        }
        FaqPack unseen = FaqEvaluation.unseen(pack, labeled, outOfScope);
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
      case "calibrate" -> {
        if (options.oos.isEmpty() && pack.outOfScope().isEmpty()) {
          throw new UsageException(
              "calibrate needs --oos FILE.tsv (out-of-scope training questions) for a pack without"
                  + " out_of_scope.txt");
        }
        Path target = options.out != null ? options.out : defaultCalibrationFile(pack.id());
        List<String> heldOut = new ArrayList<>();
        for (Path file : options.holdout) {
          heldOut.addAll(FaqEvaluation.texts(FaqEvaluation.readLabeled(file)));
        }
        // the pack's own out-of-scope examples, folded like its phrasings, unless others are given
        List<String> outOfScope =
            new ArrayList<>(options.oos.isEmpty() ? pack.outOfScope() : List.of());
        for (Path oos : options.oos) {
          outOfScope.addAll(FaqEvaluation.readTexts(oos));
        }
        String text =
            Calibrator.calibrate(
                pack,
                heldOut,
                outOfScope,
                new Calibrator.Options(
                    options.folds,
                    Calibrator.Options.DEFAULT.seed(),
                    options.minAnswered,
                    options.keywordOosAbstention,
                    options.split == null ? List.of() : FaqEvaluation.readLabeled(options.split)),
                options.models,
                options.indexDir.resolve("embedding-cache"),
                calibrateCommand(options),
                err);
        try {
          Files.writeString(target, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot write " + target, e);
        }
        out.print(text);
        err.printf("written to %s (rebuild faq-index to use it)%n", target);
        return 0;
      }
      case "bench" -> {
        BenchCommand.run(pack, options, out, err);
        return 0;
      }
      case "learn-curve" -> {
        LearnCurveCommand.run(pack, options, out);
        return 0;
      }
      default -> throw new UsageException("unknown command " + args[0]);
    }
  }

  /**
   * The command as the calibration file records it: what decides the numbers, with paths relative
   * to the repository root (not the machine's index directory or output path).
   */
  static String calibrateCommand(Options options) {
    Path repo = Path.of(System.getProperty("faq.repo", ".")).toAbsolutePath().normalize();
    StringBuilder command = new StringBuilder("bin/faq calibrate --pack ").append(options.pack);
    options.holdout.forEach(f -> command.append(" --holdout ").append(relative(repo, f)));
    options.oos.forEach(f -> command.append(" --oos ").append(relative(repo, f)));
    options.models.forEach(m -> command.append(" --model ").append(m));
    if (options.split != null) {
      command.append(" --split ").append(relative(repo, options.split));
    }
    if (options.folds != Calibrator.Options.DEFAULT.folds()) {
      command.append(" --folds ").append(options.folds);
    }
    if (options.minAnswered != Calibrator.Options.DEFAULT.minAnswered()) {
      command.append(" --min-answered ").append(options.minAnswered);
    }
    if (options.keywordOosAbstention != Calibrator.Options.DEFAULT.keywordOosAbstention()) {
      command.append(" --keyword-oos-abstention ").append(options.keywordOosAbstention);
    }
    return command.toString();
  }

  /**
   * The pack's held-out questions in this checkout: {@code faq-index/eval/PACK-validation.tsv},
   * else {@code faq-index/packs/PACK/eval/paraphrases.tsv}; null when neither exists.
   */
  static Path defaultQuestions(FaqPack pack) {
    Path module = Path.of(System.getProperty("faq.repo", ".")).resolve("faq-index");
    for (Path candidate :
        List.of(
            module.resolve("eval").resolve(pack.id() + "-validation.tsv"),
            module.resolve("packs").resolve(pack.id()).resolve("eval/paraphrases.tsv"))) {
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /** The path as the repository root sees it ({@code bin/faq} passes the root). */
  static String relativeToRepo(Path file) {
    return relative(
        Path.of(System.getProperty("faq.repo", ".")).toAbsolutePath().normalize(), file);
  }

  private static String relative(Path repo, Path file) {
    return repo.relativize(file.toAbsolutePath().normalize()).toString();
  }

  /** The pack's source folder in this checkout ({@code bin/faq} passes the repository root). */
  private static Path defaultCalibrationFile(String packId) {
    Path dir =
        Path.of(System.getProperty("faq.repo", ".")).resolve("faq-index/packs").resolve(packId);
    if (!Files.isDirectory(dir)) {
      throw new UsageException("no pack folder " + dir + ": give --out FILE");
    }
    return dir.resolve(Calibrator.FILE);
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

  /** Command-line options, parsed by hand: a few flags do not justify a dependency. */
  static final class Options {
    String pack;
    String level = "semantic";
    Path indexDir = Path.of("data", "faq-index");
    Path labeled;
    Path out;
    Path split;
    int folds = Calibrator.Options.DEFAULT.folds();
    double minAnswered = Calibrator.Options.DEFAULT.minAnswered();
    double keywordOosAbstention = Calibrator.Options.DEFAULT.keywordOosAbstention();
    Path questions;
    int block = 500;
    int startPhrasings = 3;
    int phrasingStream = Integer.MAX_VALUE;
    boolean shuffleQuestions = true;
    int threads = 2;
    double seconds = 10;
    final List<Path> oos = new ArrayList<>();
    final List<Path> holdout = new ArrayList<>();
    final List<String> models = new ArrayList<>();

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
          case "--holdout" -> options.holdout.add(existing(value));
          case "--model" -> options.models.add(value);
          case "--out" -> options.out = Path.of(value);
          case "--split" -> options.split = existing(value);
          case "--questions" -> options.questions = existing(value);
          case "--block" -> options.block = (int) number(flag, value, 1, 1_000_000);
          case "--start-phrasings" -> options.startPhrasings = (int) number(flag, value, 0, 1_000);
          case "--threads" -> options.threads = (int) number(flag, value, 1, 64);
          case "--seconds" -> options.seconds = number(flag, value, 1, 600);
          case "--order" -> {
            if (!value.equals("shuffled") && !value.equals("file")) {
              throw new UsageException("--order is shuffled or file, not " + value);
            }
            options.shuffleQuestions = value.equals("shuffled");
          }
          case "--phrasing-stream" ->
              options.phrasingStream = (int) number(flag, value, 0, Integer.MAX_VALUE);
          case "--folds" -> options.folds = (int) number(flag, value, 2, 20);
          case "--min-answered" -> options.minAnswered = number(flag, value, 0, 1);
          case "--keyword-oos-abstention" ->
              options.keywordOosAbstention = number(flag, value, 0, 1);
          default -> throw new UsageException("unknown option " + flag);
        }
      }
      if (options.pack == null) {
        throw new UsageException("--pack is required");
      }
      return options;
    }

    private static double number(String flag, String value, double min, double max) {
      double number;
      try {
        number = Double.parseDouble(value);
      } catch (NumberFormatException e) {
        throw new UsageException(flag + " is a number, not " + value);
      }
      if (!(number >= min && number <= max)) {
        throw new UsageException(flag + " is between " + min + " and " + max + ", not " + value);
      }
      return number;
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
