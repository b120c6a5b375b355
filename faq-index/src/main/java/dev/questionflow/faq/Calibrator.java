package dev.questionflow.faq;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Chooses a pack's tuned numbers by k-fold cross-validation on its training side only ({@code
 * bin/faq calibrate}): the pack's phrasings, without any text of the held-out (validation) files,
 * are split into {@code folds} stratified folds; each fold is matched against an index built from
 * the other folds, so every number is chosen on out-of-fold answers. Out-of-scope questions come
 * from a training file of their own. The validation files are never matched here: {@code bin/faq
 * eval} reports on them once.
 *
 * <ul>
 *   <li>Keyword level: hits per entry by pooled out-of-fold top-1; then the abstention thresholds
 *       that answer the most in-scope questions correctly while abstaining on at least {@code
 *       keywordOosAbstention} of the out-of-scope ones.
 *   <li>Semantic level, per model: kNN size and temperature and the fusion weights by pooled
 *       out-of-fold top-1; then the thresholds (minimum fused score and nearest-phrasing
 *       similarity) that abstain on the most out-of-scope questions while answering at least {@code
 *       minAnswered} of the in-scope ones.
 * </ul>
 *
 * Figures per fold at the chosen numbers are printed as mean and spread (standard deviation). This
 * class holds the folds and the figures; {@link KeywordCalibration} and {@link SemanticCalibration}
 * search each level's numbers.
 */
public final class Calibrator {

  /** The file beside a pack's entries ({@link PackCalibration} reads it). */
  public static final String FILE = PackCalibration.FILE;

  /**
   * @param folds k of the k-fold split
   *     <p>Defaults: 5 folds, seed 42, 99.5 % answered (the English target), 95 % abstained.
   * @param seed the split's shuffle
   * @param minAnswered semantic level: least share of in-scope questions answered
   * @param keywordOosAbstention keyword level: least share of out-of-scope questions abstained on
   * @param split when not empty, one fixed split instead of the k folds: these phrasings are
   *     matched against an index of the others. For a pack whose encoder was tuned on its phrasings
   *     ({@code bin/faq tune}): every k-fold index would hold phrasings the encoder was tuned on,
   *     so only the 20 % it never saw ({@code eval/tune-heldout.tsv}) calibrate honestly.
   */
  public record Options(
      int folds,
      long seed,
      double minAnswered,
      double keywordOosAbstention,
      List<LabeledQuestion> split) {
    public static final Options DEFAULT = new Options(5, 42, 0.995, 0.95, List.of());

    public Options {
      split = List.copyOf(split);
    }
  }

  /**
   * Sees this thread's runs' semantic results and candidates (package-private: {@code
   * CalibratorTest} checks a committed choice against those of its rerun); unset elsewhere.
   */
  static final ThreadLocal<Consumer<List<SemanticCalibration.Result>>> OBSERVER =
      new ThreadLocal<>();

  /** Mean and standard deviation of a figure over the folds. */
  record Spread(double mean, double sd) {
    static Spread of(double[] perFold) {
      if (perFold.length == 1) {
        return new Spread(perFold[0], Double.NaN);
      }
      double mean = 0;
      for (double v : perFold) {
        mean += v / perFold.length;
      }
      double var = 0;
      for (double v : perFold) {
        var += (v - mean) * (v - mean) / Math.max(1, perFold.length - 1);
      }
      return new Spread(mean, Math.sqrt(var));
    }

    @Override
    public String toString() {
      return Double.isNaN(sd)
          ? String.format(Locale.ROOT, "%.2f %%", 100 * mean)
          : String.format(Locale.ROOT, "%.2f ± %.2f %%", 100 * mean, 100 * sd);
    }
  }

  /** A question's out-of-fold answer, as the figures count it. */
  interface Row {
    int fold();

    boolean inScope();

    /** The top-ranked entry is the right one (never for an out-of-scope question). */
    boolean correct();
  }

  /** The four figures of a level at its chosen numbers, each over the folds. */
  record Figures(Spread top1, Spread answered, Spread answeredAccuracy, Spread oosAbstention) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "top-1 %s, answered %s, accuracy of answers %s, out-of-scope abstained %s",
          top1,
          answered,
          answeredAccuracy,
          oosAbstention);
    }
  }

  /**
   * Calibrates both levels (keyword first: the semantic level fuses with the chosen keyword
   * settings) and returns the calibration file's text.
   *
   * @param heldOut texts of the validation files, never used here
   * @param outOfScope out-of-scope training questions
   * @param models embedding model ids; empty: the pack's encoder (its tuned one, else the
   *     language's default model)
   * @param embeddingCache where embeddings of pack texts are kept between runs
   * @param command the command line, written into the file
   */
  public static String calibrate(
      FaqPack pack,
      List<String> heldOut,
      List<String> outOfScope,
      Options options,
      List<String> models,
      java.nio.file.Path embeddingCache,
      String command,
      PrintStream log) {
    Calibrator calibrator = new Calibrator(pack, heldOut, outOfScope, options, log);
    KeywordCalibration.Result keyword = KeywordCalibration.run(calibrator);
    List<SemanticCalibration.Result> semantic = new ArrayList<>();
    List<CachingEmbedder> chosen =
        models.isEmpty()
            ? List.of(CachingEmbedder.of(pack, embeddingCache))
            : models.stream()
                .map(id -> CachingEmbedder.of(FaqEmbeddingModel.fromId(id), embeddingCache))
                .toList();
    for (CachingEmbedder embedder : chosen) {
      semantic.add(SemanticCalibration.run(calibrator, embedder, keyword.settings()));
      embedder.save();
    }
    Optional.ofNullable(OBSERVER.get()).ifPresent(o -> o.accept(semantic));
    return calibrator.file(command, keyword, semantic);
  }

  /** The calibration file: how it was made, the folds' figures, then the numbers. */
  String file(
      String command,
      KeywordCalibration.Result keyword,
      List<SemanticCalibration.Result> semantic) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "# Calibration of FAQ pack %s, written by bin/faq calibrate: rerun it rather than edit by"
                + " hand.%n#   %s%n",
            pack.id(),
            command));
    out.append(
        options.split().isEmpty()
            ? String.format(
                Locale.ROOT,
                "# %d-fold cross-validation (seed %d) on the pack's %d phrasings not in the held-out"
                    + " files, with %d%n",
                options.folds(),
                options.seed(),
                trainingSize(),
                outOfScope.size())
            : String.format(
                Locale.ROOT,
                "# one fixed split: %d phrasings matched against the pack's other phrasings not in"
                    + " the held-out files, with %d%n",
                trainingSize(),
                outOfScope.size()));
    if (!options.split().isEmpty()) {
      out.append(
          exampleCount() == 0
              ? String.format(
                  "# out-of-scope training questions; the held-out files are only for bin/faq eval."
                      + " Figures on the split:%n")
              : String.format(
                  Locale.ROOT,
                  "# out-of-scope training questions (%d of them the pack's own out-of-scope"
                      + " examples: a fifth asked, the rest kept in the index); the held-out files"
                      + " are only for bin/faq eval. Figures on the split:%n",
                  exampleCount()));
    } else {
      out.append(
          exampleCount() == 0
              ? """
              # out-of-scope training questions; the held-out files are only for bin/faq eval. Out-of-fold figures,
              # mean ± standard deviation over the folds:
              """
              : String.format(
                  Locale.ROOT,
                  """
                # out-of-scope training questions (%d of them the pack's own out-of-scope examples, folded like the
                # phrasings); the held-out files are only for bin/faq eval. Out-of-fold figures, mean ± standard
                # deviation over the folds:
                """,
                  exampleCount()));
    }
    out.append(
        String.format(
            Locale.ROOT,
            "# keyword: %s%n"
                + "#   (thresholds: most in-scope answered correctly with at least %.0f %% out of scope"
                + " abstained)%n",
            keyword.figures(),
            100 * options.keywordOosAbstention()));
    for (SemanticCalibration.Result r : semantic) {
      out.append(String.format(Locale.ROOT, "# semantic %s: %s%n", r.modelId(), r.figures()));
    }
    out.append(
        String.format(
            Locale.ROOT,
            "#   (thresholds: most out of scope abstained with at least %.1f %% in scope answered)%n",
            100 * options.minAnswered()));
    KeywordSettings k = keyword.settings();
    out.append("keyword.hits-per-faq=").append(k.hitsPerFaq()).append('\n');
    out.append("keyword.min-score=").append(k.minScore()).append('\n');
    out.append("keyword.min-coverage=").append(k.minCoverage()).append('\n');
    out.append("keyword.min-query-idf=").append(k.minQueryIdf()).append('\n');
    out.append("keyword.min-margin=").append(k.minMargin()).append('\n');
    out.append(
        "# semantic.<model> = knnK knnTemp wClassifier wKnn wKeyword minScore minSimilarity"
            + " confidentSimilarity minKeyword minOutOfScopeGap\n");
    for (SemanticCalibration.Result r : semantic) {
      out.append("semantic.")
          .append(r.modelId())
          .append('=')
          .append(r.settings().row())
          .append('\n');
    }
    return out.toString();
  }

  private final FaqPack pack;
  private final Set<String> heldOut;
  private final List<String> outOfScope;
  private final Options options;
  private final PrintStream log;
  private final List<List<LabeledQuestion>> folds;

  /**
   * The fold of each of the pack's out-of-scope examples (normalised text): fold f's index leaves
   * its examples out, and they are asked of that index only, as its phrasings are.
   */
  private final Map<String, Integer> exampleFolds;

  /**
   * @param heldOut texts of the validation files: removed from the training side
   * @param outOfScope out-of-scope training questions
   */
  Calibrator(
      FaqPack pack,
      List<String> heldOut,
      List<String> outOfScope,
      Options options,
      PrintStream log) {
    this.pack = pack;
    this.heldOut = new HashSet<>(heldOut);
    this.outOfScope = List.copyOf(outOfScope);
    this.options = options;
    this.log = log;
    List<LabeledQuestion> training = CalibrationSplits.training(pack, this.heldOut);
    this.folds =
        options.split().isEmpty()
            ? CalibrationSplits.folds(training, options.folds(), options.seed())
            : List.of(CalibrationSplits.splitFold(training, options.split()));
    // with a fixed split, fold 0's out-of-scope examples are asked and the others stay in the index
    this.exampleFolds =
        CalibrationSplits.exampleFolds(pack, this.heldOut, options.folds(), options.seed());
  }

  int trainingSize() {
    return folds.stream().mapToInt(List::size).sum();
  }

  List<List<LabeledQuestion>> folds() {
    return folds;
  }

  List<String> outOfScope() {
    return outOfScope;
  }

  /**
   * The out-of-scope questions to ask of fold f's index: every one, except that one of the pack's
   * own out-of-scope examples is asked only of the fold that left it out of its index.
   */
  List<String> outOfScope(int f) {
    return outOfScope.stream()
        .filter(q -> exampleFolds.getOrDefault(FaqEvaluation.normalise(q), f) == f)
        .toList();
  }

  /** The pack's out-of-scope examples in no held-out file. */
  int exampleCount() {
    return exampleFolds.size();
  }

  FaqPack pack() {
    return pack;
  }

  Options options() {
    return options;
  }

  PrintStream log() {
    return log;
  }

  /**
   * The index side of fold {@code f}: the pack without fold f's phrasings and out-of-scope
   * examples, and without the held-out texts.
   */
  FaqPack foldPack(int f) {
    List<String> drop = new ArrayList<>(heldOut);
    drop.addAll(FaqEvaluation.texts(folds.get(f)));
    exampleFolds.forEach(
        (example, fold) -> {
          if (fold == f) {
            drop.add(example);
          }
        });
    return FaqEvaluation.withoutPhrasings(pack, drop);
  }

  /**
   * The level's four figures over the folds, with {@code answers} telling which rows it answers.
   */
  <R extends Row> Figures figures(List<R> rows, Predicate<R> answers) {
    return new Figures(
        perFold(rows, Row::correct, Row::inScope),
        perFold(rows, answers, Row::inScope),
        perFold(rows, Row::correct, r -> r.inScope() && answers.test(r)),
        perFold(rows, r -> !answers.test(r), r -> !r.inScope()));
  }

  /** The share of the rows {@code of} that are {@code hit}, pooled over all folds (NaN if none). */
  static <R> double share(List<R> rows, Predicate<? super R> hit, Predicate<? super R> of) {
    int n = 0;
    int h = 0;
    for (R r : rows) {
      if (of.test(r)) {
        n++;
        if (hit.test(r)) {
          h++;
        }
      }
    }
    return n == 0 ? Double.NaN : h / (double) n;
  }

  private <R extends Row> Spread perFold(
      List<R> rows, Predicate<? super R> hit, Predicate<? super R> of) {
    double[] perFold = new double[folds.size()];
    for (int f = 0; f < perFold.length; f++) {
      int only = f;
      perFold[f] = share(rows, hit, r -> r.fold() == only && of.test(r));
    }
    return Spread.of(perFold);
  }
}
