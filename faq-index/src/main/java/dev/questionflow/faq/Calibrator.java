package dev.questionflow.faq;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

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
 * Figures per fold at the chosen numbers are printed as mean and spread (standard deviation).
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
   */
  public record Options(int folds, long seed, double minAnswered, double keywordOosAbstention) {
    public static final Options DEFAULT = new Options(5, 42, 0.995, 0.95);
  }

  /** Mean and standard deviation of a figure over the folds. */
  record Spread(double mean, double sd) {
    static Spread of(double[] perFold) {
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
      return String.format(Locale.ROOT, "%.2f ± %.2f %%", 100 * mean, 100 * sd);
    }
  }

  /** The chosen keyword numbers and their k-fold figures. */
  record KeywordResult(
      KeywordSettings settings,
      Spread top1,
      Spread answered,
      Spread answeredAccuracy,
      Spread oosAbstention) {}

  /** The chosen semantic numbers of one model and their k-fold figures. */
  record SemanticResult(
      String modelId,
      SemanticSettings settings,
      Spread top1,
      Spread answered,
      Spread answeredAccuracy,
      Spread oosAbstention) {}

  /**
   * Calibrates both levels (keyword first: the semantic level fuses with the chosen keyword
   * settings) and returns the calibration file's text.
   *
   * @param heldOut texts of the validation files, never used here
   * @param outOfScope out-of-scope training questions
   * @param models embedding model ids; empty: the pack language's default model
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
    KeywordResult keyword = calibrator.calibrateKeyword();
    List<SemanticResult> semantic = new ArrayList<>();
    List<FaqEmbeddingModel> chosen =
        models.isEmpty()
            ? List.of(FaqEmbeddingModel.defaultFor(pack.language()))
            : models.stream().map(FaqEmbeddingModel::fromId).toList();
    for (FaqEmbeddingModel model : chosen) {
      CachingEmbedder embedder = CachingEmbedder.of(model, embeddingCache);
      semantic.add(calibrator.calibrateSemantic(embedder, keyword.settings()));
      embedder.save();
    }
    return calibrator.file(command, keyword, semantic);
  }

  /** The calibration file: how it was made, the folds' figures, then the numbers. */
  String file(String command, KeywordResult keyword, List<SemanticResult> semantic) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            """
            # Calibration of FAQ pack %s, written by bin/faq calibrate: rerun it rather than edit by hand.
            #   %s
            # %d-fold cross-validation (seed %d) on the pack's %d phrasings not in the held-out files, with %d
            # out-of-scope training questions; the held-out files are only for bin/faq eval. Out-of-fold figures,
            # mean ± standard deviation over the folds:
            """,
            pack.id(),
            command,
            options.folds(),
            options.seed(),
            trainingSize(),
            outOfScope.size()));
    out.append(
        String.format(
            Locale.ROOT,
            "# keyword: top-1 %s, answered %s, accuracy of answers %s, out-of-scope abstained %s%n"
                + "#   (thresholds: most in-scope answered correctly with at least %.0f %% out of scope"
                + " abstained)%n",
            keyword.top1(),
            keyword.answered(),
            keyword.answeredAccuracy(),
            keyword.oosAbstention(),
            100 * options.keywordOosAbstention()));
    for (SemanticResult r : semantic) {
      out.append(
          String.format(
              Locale.ROOT,
              "# semantic %s: top-1 %s, answered %s, accuracy of answers %s, out-of-scope"
                  + " abstained %s%n",
              r.modelId(),
              r.top1(),
              r.answered(),
              r.answeredAccuracy(),
              r.oosAbstention()));
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
            + " confidentSimilarity minKeyword\n");
    for (SemanticResult r : semantic) {
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
    this.folds = folds(training(pack, this.heldOut), options.folds(), options.seed());
  }

  /** The pack's phrasings without the held-out texts (compared as {@link FaqEvaluation} does). */
  static List<LabeledQuestion> training(FaqPack pack, Set<String> heldOut) {
    Set<String> drop = new HashSet<>();
    heldOut.forEach(t -> drop.add(FaqEvaluation.normalise(t)));
    Set<String> seen = new HashSet<>();
    List<LabeledQuestion> out = new ArrayList<>();
    for (FaqEntry e : pack.entries()) {
      for (String p : e.phrasings()) {
        String n = FaqEvaluation.normalise(p);
        if (!drop.contains(n) && seen.add(n)) {
          out.add(new LabeledQuestion(n, e.id()));
        }
      }
    }
    return out;
  }

  /** Per entry, shuffled with {@code new Random(seed)} and dealt round-robin into k folds. */
  static List<List<LabeledQuestion>> folds(List<LabeledQuestion> all, int k, long seed) {
    if (k < 2) {
      throw new IllegalArgumentException("k-fold needs at least 2 folds, not " + k);
    }
    Map<String, List<LabeledQuestion>> byEntry = new LinkedHashMap<>();
    all.forEach(q -> byEntry.computeIfAbsent(q.faqId(), x -> new ArrayList<>()).add(q));
    List<List<LabeledQuestion>> folds = new ArrayList<>();
    for (int f = 0; f < k; f++) {
      folds.add(new ArrayList<>());
    }
    Random random = new Random(seed);
    int next = 0;
    for (List<LabeledQuestion> group : byEntry.values()) {
      List<LabeledQuestion> shuffled = new ArrayList<>(group);
      Collections.shuffle(shuffled, random);
      for (LabeledQuestion q : shuffled) {
        folds.get(next++ % k).add(q);
      }
    }
    return folds;
  }

  int trainingSize() {
    return folds.stream().mapToInt(List::size).sum();
  }

  /** The index side of fold {@code f}: the pack without fold f's and the held-out texts. */
  private FaqPack foldPack(int f) {
    List<String> drop = new ArrayList<>(heldOut);
    drop.addAll(FaqEvaluation.texts(folds.get(f)));
    return FaqEvaluation.withoutPhrasings(pack, drop);
  }

  // ---------------------------------------------------------------------------------------------
  // keyword level

  /** One question's top candidate as the keyword thresholds see it. */
  private record KeywordRow(
      int fold,
      boolean inScope,
      boolean correct,
      double score,
      double coverage,
      double queryIdf,
      double margin) {}

  private static final int[] HITS_PER_FAQ = {1, 2, 3, 5, 10, 20};

  KeywordResult calibrateKeyword() {
    // the least query information (one very common word such as "card" or 退款 is too vague to
    // answer) is a rule, not a tuned number: no training set asks such one-word questions, so a
    // search would drop it
    KeywordSettings base0 = KeywordSettings.languageDefault(pack);
    KeywordSettings base = base0.withThresholds(0, 0, 0, 0);
    List<KeywordRow> bestRows = null;
    int bestHits = base.hitsPerFaq();
    double bestTop1 = -1;
    for (int hits : HITS_PER_FAQ) {
      List<KeywordRow> rows = keywordRows(base.withHitsPerFaq(hits));
      double top1 = share(rows, r -> r.inScope() && r.correct(), KeywordRow::inScope);
      log.printf(
          Locale.ROOT, "keyword: hits-per-faq %d, out-of-fold top-1 %.2f %%%n", hits, 100 * top1);
      if (top1 > bestTop1 + 1e-9) {
        bestTop1 = top1;
        bestHits = hits;
        bestRows = rows;
      }
    }
    List<KeywordRow> rows = bestRows;
    double[] best = null;
    double bestCorrect = -1;
    double bestOos = -1;
    for (double score = 0; score <= 0.3001; score += 0.01) {
      for (double coverage = 0; coverage <= 0.9501; coverage += 0.05) {
        for (double idf : new double[] {base0.minQueryIdf()}) {
          for (double margin : new double[] {0, 0.05, 0.1, 0.2}) {
            double[] t = {score, coverage, idf, margin};
            double oos = share(rows, r -> !r.inScope() && !answers(r, t), r -> !r.inScope());
            if (oos < options.keywordOosAbstention()) {
              continue;
            }
            double correct =
                share(rows, r -> r.inScope() && r.correct() && answers(r, t), KeywordRow::inScope);
            if (correct > bestCorrect + 1e-9
                || (Math.abs(correct - bestCorrect) < 1e-9 && oos > bestOos + 1e-9)) {
              bestCorrect = correct;
              bestOos = oos;
              best = t;
            }
          }
        }
      }
    }
    if (best == null) {
      throw new IllegalStateException(
          "no keyword thresholds abstain on "
              + options.keywordOosAbstention()
              + " of the out-of-scope questions");
    }
    double[] t = best;
    KeywordSettings chosen =
        base.withHitsPerFaq(bestHits).withThresholds(round(t[0]), round(t[1]), round(t[2]), t[3]);
    return new KeywordResult(
        chosen,
        perFold(rows, r -> r.inScope() && r.correct(), KeywordRow::inScope, KeywordRow::fold),
        perFold(rows, r -> r.inScope() && answers(r, t), KeywordRow::inScope, KeywordRow::fold),
        perFold(
            rows,
            r -> r.inScope() && answers(r, t) && r.correct(),
            r -> r.inScope() && answers(r, t),
            KeywordRow::fold),
        perFold(rows, r -> !r.inScope() && !answers(r, t), r -> !r.inScope(), KeywordRow::fold));
  }

  private static boolean answers(KeywordRow r, double[] t) {
    return r.score() >= t[0] && r.coverage() >= t[1] && r.queryIdf() >= t[2] && r.margin() >= t[3];
  }

  private List<KeywordRow> keywordRows(KeywordSettings settings) {
    List<KeywordRow> rows = new ArrayList<>();
    for (int f = 0; f < folds.size(); f++) {
      try (KeywordFaqIndex index = KeywordFaqIndex.build(foldPack(f), settings)) {
        for (LabeledQuestion q : folds.get(f)) {
          rows.add(keywordRow(index, f, q.text(), q.faqId()));
        }
        for (String q : outOfScope) {
          rows.add(keywordRow(index, f, q, null));
        }
      }
    }
    return rows;
  }

  private static KeywordRow keywordRow(KeywordFaqIndex index, int fold, String text, String gold) {
    List<KeywordFaqIndex.Candidate> top = index.rank(text, 2);
    if (top.isEmpty()) {
      return new KeywordRow(fold, gold != null, false, -1, 0, 0, 0); // no candidate: abstains
    }
    KeywordFaqIndex.Candidate first = top.get(0);
    double margin =
        top.size() < 2 || first.score() <= 0
            ? 1
            : (first.score() - top.get(1).score()) / first.score();
    return new KeywordRow(
        fold,
        gold != null,
        first.faqId().equals(gold),
        first.score(),
        first.coverage(),
        first.maxPossible(),
        margin);
  }

  // ---------------------------------------------------------------------------------------------
  // semantic level

  /** One question's signals against its fold's index. */
  private record SemanticRow(int fold, int gold, SemanticFaqIndex.Signals signals) {}

  private static final int[] KNN_K = {10, 20, 30, 50};
  private static final double[] KNN_TEMP = {0.01, 0.02, 0.03, 0.05};

  /**
   * @param keyword the keyword settings fused with (the ones chosen by {@link #calibrateKeyword})
   */
  SemanticResult calibrateSemantic(Embedder embedder, KeywordSettings keyword) {
    SemanticSettings base =
        SemanticSettings.defaults(embedder.modelId())
            .withKnn(KNN_K[KNN_K.length - 1], 0.02)
            .withThresholds(0, 0, 0, 0);
    List<String> texts = new ArrayList<>();
    folds.forEach(f -> texts.addAll(FaqEvaluation.texts(f)));
    texts.addAll(outOfScope);
    pack.entries().forEach(e -> texts.add(e.question().strip()));
    long started = System.nanoTime();
    embedder.embedAll(texts);
    log.printf(
        "semantic %s: %d texts embedded in %d s%n",
        embedder.modelId(), texts.size(), (System.nanoTime() - started) / 1_000_000_000);
    List<SemanticRow> rows = new ArrayList<>();
    String[] entryIds = null;
    for (int f = 0; f < folds.size(); f++) {
      try (SemanticFaqIndex index =
          SemanticFaqIndex.build(foldPack(f), embedder, base, false, keyword)) {
        String[] ids = index.entryIds();
        if (entryIds == null) {
          entryIds = ids;
        } else if (!java.util.Arrays.equals(entryIds, ids)) {
          throw new IllegalStateException("the folds' indexes order the entries differently");
        }
        List<String> order = List.of(ids);
        for (LabeledQuestion q : folds.get(f)) {
          rows.add(semanticRow(index, embedder, f, q.text(), order.indexOf(q.faqId()), base));
        }
        for (String q : outOfScope) {
          rows.add(semanticRow(index, embedder, f, q, -1, base));
        }
      }
    }
    int entries = entryIds.length;
    // kNN size, temperature and weights by pooled out-of-fold top-1
    double bestTop1 = -1;
    SemanticSettings best = base;
    for (int k : KNN_K) {
      for (double temp : KNN_TEMP) {
        double[][] votes = new double[rows.size()][];
        for (int i = 0; i < rows.size(); i++) {
          votes[i] = vote(rows.get(i).signals(), k, temp, entries);
        }
        for (int wc = 0; wc <= 20; wc++) {
          for (int wk = 0; wc + wk <= 20; wk++) {
            double[] w = {wc / 20.0, wk / 20.0, (20 - wc - wk) / 20.0};
            int correct = 0;
            int inScope = 0;
            for (int i = 0; i < rows.size(); i++) {
              SemanticRow r = rows.get(i);
              if (r.gold() < 0) {
                continue;
              }
              inScope++;
              if (argmax(fused(r.signals(), votes[i], w)) == r.gold()) {
                correct++;
              }
            }
            double top1 = correct / (double) inScope;
            if (top1 > bestTop1 + 1e-9) {
              bestTop1 = top1;
              best = base.withKnn(k, temp).withWeights(w[0], w[1], w[2]);
            }
          }
        }
      }
    }
    log.printf(
        Locale.ROOT,
        "semantic %s: out-of-fold top-1 %.2f %% with k %d, T %.2f, weights %.2f/%.2f/%.2f%n",
        embedder.modelId(),
        100 * bestTop1,
        best.knnK(),
        best.knnTemp(),
        best.wClassifier(),
        best.wKnn(),
        best.wKeyword());
    // per row at the chosen fusion: [correct, fused top score, nearest similarity, fold, inScope]
    double[][] outcome = new double[rows.size()][];
    double[] w = {best.wClassifier(), best.wKnn(), best.wKeyword()};
    for (int i = 0; i < rows.size(); i++) {
      SemanticRow r = rows.get(i);
      double[] scores =
          fused(r.signals(), vote(r.signals(), best.knnK(), best.knnTemp(), entries), w);
      int top = argmax(scores);
      double[] cos = r.signals().nearestCos();
      outcome[i] =
          new double[] {
            top == r.gold() ? 1 : 0,
            Math.min(1, Math.max(0, scores[top])),
            cos.length == 0 ? 0 : cos[0],
            r.fold(),
            r.gold() >= 0 ? 1 : 0
          };
    }
    // thresholds: the most out-of-scope abstentions while answering at least minAnswered
    double[] chosen = {0, 0};
    double bestOos = -1;
    double bestAnswered = -1;
    for (int s = 0; s <= 10; s++) {
      for (int m = 30; m <= 95; m++) {
        double[] t = {s * 0.05, m / 100.0};
        double answered = rate(outcome, o -> o[4] == 1, o -> answers(o, t));
        if (answered < options.minAnswered()) {
          continue;
        }
        double oos = rate(outcome, o -> o[4] == 0, o -> !answers(o, t));
        if (oos > bestOos + 1e-9 || (Math.abs(oos - bestOos) < 1e-9 && answered > bestAnswered)) {
          bestOos = oos;
          bestAnswered = answered;
          chosen = t;
        }
      }
    }
    double[] t = chosen;
    SemanticSettings settings = best.withThresholds(t[0], t[1], t[1], 0);
    int k = folds.size();
    return new SemanticResult(
        embedder.modelId(),
        settings,
        foldRate(outcome, k, o -> o[4] == 1, o -> o[0] == 1),
        foldRate(outcome, k, o -> o[4] == 1, o -> answers(o, t)),
        foldRate(outcome, k, o -> o[4] == 1 && answers(o, t), o -> o[0] == 1),
        foldRate(outcome, k, o -> o[4] == 0, o -> !answers(o, t)));
  }

  private static boolean answers(double[] outcome, double[] t) {
    return outcome[1] >= t[0] && outcome[2] >= t[1];
  }

  private static SemanticRow semanticRow(
      SemanticFaqIndex index,
      Embedder embedder,
      int fold,
      String text,
      int gold,
      SemanticSettings base) {
    return new SemanticRow(
        fold,
        gold,
        index.signals(embedder.embed(text), index.keyword().search(text, 10), base.knnK()));
  }

  /**
   * {@link Fusion#knnVote} over the first k of the nearest phrasings (of one search for the largest
   * k: HNSW's approximate top 10 of a search for 50 is at least as exact as a search for 10).
   */
  private static double[] vote(SemanticFaqIndex.Signals s, int k, double temp, int entries) {
    double[] shares = new double[entries];
    double sum = 0;
    for (int i = 0; i < Math.min(k, s.nearestEntry().length); i++) {
      double v = Math.exp((s.nearestCos()[i] - 1.0) / temp);
      shares[s.nearestEntry()[i]] += v;
      sum += v;
    }
    if (sum > 0) {
      for (int c = 0; c < entries; c++) {
        shares[c] /= sum;
      }
    }
    return shares;
  }

  private static double[] fused(SemanticFaqIndex.Signals s, double[] vote, double[] w) {
    double[] out = new double[vote.length];
    for (int c = 0; c < out.length; c++) {
      out[c] = w[0] * s.classifier()[c] + w[1] * vote[c] + w[2] * s.keyword()[c];
    }
    return out;
  }

  /** The first index of the highest value (ties: the lower index, as the fusion breaks by id). */
  private static int argmax(double[] v) {
    int arg = 0;
    for (int i = 1; i < v.length; i++) {
      if (v[i] > v[arg]) {
        arg = i;
      }
    }
    return arg;
  }

  // ---------------------------------------------------------------------------------------------
  // figures

  private static <R> double share(
      List<R> rows, java.util.function.Predicate<R> hit, java.util.function.Predicate<R> of) {
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

  private <R> Spread perFold(
      List<R> rows,
      java.util.function.Predicate<R> hit,
      java.util.function.Predicate<R> of,
      java.util.function.ToIntFunction<R> fold) {
    double[] perFold = new double[folds.size()];
    for (int f = 0; f < perFold.length; f++) {
      int only = f;
      perFold[f] = share(rows, r -> hit.test(r), r -> fold.applyAsInt(r) == only && of.test(r));
    }
    return Spread.of(perFold);
  }

  private static double rate(
      double[][] outcome,
      java.util.function.Predicate<double[]> of,
      java.util.function.Predicate<double[]> hit) {
    return share(List.of(outcome), hit, of);
  }

  private static Spread foldRate(
      double[][] outcome,
      int folds,
      java.util.function.Predicate<double[]> of,
      java.util.function.Predicate<double[]> hit) {
    double[] perFold = new double[folds];
    for (int f = 0; f < folds; f++) {
      int only = f;
      perFold[f] = rate(outcome, o -> o[3] == only && of.test(o), hit);
    }
    return Spread.of(perFold);
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
