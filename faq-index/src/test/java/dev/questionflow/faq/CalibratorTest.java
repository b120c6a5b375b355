package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import dev.questionflow.faq.cli.FaqCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Calibrator}: the k-fold split never sees a held-out text, and each committed pack
 * calibration is what its own recorded command produces today, up to near-ties that the embedding
 * model's floats decide differently on another CPU (so the file is reproducible and no number in it
 * was edited by hand to a worse one).
 */
class CalibratorTest {

  private static final Path REPO = Path.of("").toAbsolutePath().getParent();

  @Test
  void foldsAreStratifiedDisjointAndWithoutHeldOutTexts() {
    FaqPack pack = FaqPacks.loadFromClasspath("ecommerce-zh");
    List<String> heldOut = new ArrayList<>();
    pack.entries().forEach(e -> heldOut.add(e.phrasings().get(0)));

    List<LabeledQuestion> training = CalibrationSplits.training(pack, new HashSet<>(heldOut));
    List<List<LabeledQuestion>> folds = CalibrationSplits.folds(training, 5, 42);

    assertThat(FaqEvaluation.texts(training)).doesNotContainAnyElementsOf(heldOut);
    List<LabeledQuestion> union = folds.stream().flatMap(List::stream).toList();
    assertThat(union).containsExactlyInAnyOrderElementsOf(training);
    assertThat(new HashSet<>(union)).hasSameSizeAs(union);
    Map<String, Long> perEntry =
        training.stream()
            .collect(Collectors.groupingBy(LabeledQuestion::faqId, Collectors.counting()));
    for (List<LabeledQuestion> fold : folds) {
      Map<String, Long> inFold =
          fold.stream()
              .collect(Collectors.groupingBy(LabeledQuestion::faqId, Collectors.counting()));
      // stratified: each entry's questions are dealt evenly over the folds
      perEntry.forEach(
          (id, n) -> assertThat(inFold.getOrDefault(id, 0L)).isBetween(n / 5, (n + 4) / 5));
    }
    assertThat(CalibrationSplits.folds(training, 5, 42)).isEqualTo(folds);
  }

  @Test
  void aFixedSplitIsOneFoldOfTrainingPhrasingsAndRefusesAnythingElse() {
    FaqPack pack = FaqPacks.loadFromClasspath("ecommerce-zh");
    List<String> heldOut = new ArrayList<>();
    pack.entries().forEach(e -> heldOut.add(e.phrasings().get(0)));
    List<LabeledQuestion> training = CalibrationSplits.training(pack, new HashSet<>(heldOut));
    FaqEntry first = pack.entries().get(0);
    List<LabeledQuestion> split =
        List.of(
            new LabeledQuestion(first.phrasings().get(1), first.id()),
            new LabeledQuestion(" " + first.phrasings().get(2) + " ", first.id()));

    List<LabeledQuestion> fold = CalibrationSplits.splitFold(training, split);
    assertThat(fold)
        .extracting(LabeledQuestion::text)
        .containsExactly(
            FaqEvaluation.normalise(first.phrasings().get(1)),
            FaqEvaluation.normalise(first.phrasings().get(2)));
    // a held-out text, a phrasing filed under another entry, a text of no entry: refused
    String other = pack.entries().get(1).id();
    for (LabeledQuestion bad :
        List.of(
            new LabeledQuestion(first.phrasings().get(0), first.id()),
            new LabeledQuestion(first.phrasings().get(1), other),
            new LabeledQuestion("no such phrasing", first.id()))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> CalibrationSplits.splitFold(training, List.of(bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("outside the held-out files");
    }
    Calibrator calibrator =
        new Calibrator(
            pack,
            heldOut,
            pack.outOfScope(),
            new Calibrator.Options(5, 42, 0.995, 0.95, split),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(calibrator.folds()).containsExactly(fold);
    FaqPack index = calibrator.foldPack(0);
    Set<String> phrasings = new HashSet<>();
    index.entries().forEach(e -> phrasings.addAll(e.phrasings()));
    assertThat(phrasings).doesNotContainAnyElementsOf(FaqEvaluation.texts(fold));
    assertThat(phrasings).doesNotContainAnyElementsOf(heldOut);
    assertThat(phrasings).contains(first.phrasings().get(3));
  }

  @Test
  void aFoldIsMatchedAgainstAnIndexWithoutIt() {
    FaqPack pack = FaqPacks.loadFromClasspath("ecommerce-zh");
    List<LabeledQuestion> training = CalibrationSplits.training(pack, Set.of());
    List<LabeledQuestion> fold = CalibrationSplits.folds(training, 5, 42).get(0);
    FaqPack index = FaqEvaluation.unseen(pack, fold);
    Set<String> phrasings = new HashSet<>();
    index.entries().forEach(e -> phrasings.addAll(e.phrasings()));
    assertThat(phrasings).doesNotContainAnyElementsOf(FaqEvaluation.texts(fold));
  }

  /**
   * In-scope shares within this much of the best are tied (0.05 points, at least one question: a
   * last-bit difference moves whole questions).
   */
  private static final double TIE = 0.0005;

  /** Printed figures within this many hundredths of a point of the rerun's agree (0.05 points). */
  private static final int FIGURE_HUNDREDTHS = 5;

  private static final Pattern FIGURE = Pattern.compile("\\d+\\.\\d{2}");

  /**
   * Reruns the command recorded in the pack's calibration file (paths resolved from the repository
   * root) and compares everything but that command line: exactly, but for what the embedding
   * model's floats decide. Those differ in their last bits between CPUs (instruction-set-specific
   * kernels), so a near-tie between two semantic candidates may go the other way: the committed
   * semantic numbers must instead be (near-)best by the search's own objective on this machine's
   * rerun, and the committed figures those of the rerun at the committed numbers.
   */
  @ParameterizedTest
  @ValueSource(strings = {"ecommerce-zh", "banking77"})
  void committedCalibrationIsWhatItsCommandWrites(String packId, @TempDir Path tmp)
      throws Exception {
    Path committed = REPO.resolve("faq-index/packs").resolve(packId).resolve(Calibrator.FILE);
    List<String> lines = Files.readAllLines(committed, StandardCharsets.UTF_8);
    String command =
        lines.stream()
            .filter(l -> l.startsWith("#   bin/faq calibrate "))
            .findFirst()
            .orElseThrow()
            .substring("#   bin/faq ".length());
    List<String> args = new ArrayList<>();
    String[] words = command.split(" ");
    for (int i = 0; i < words.length; i++) {
      args.add(words[i]);
      if (Set.of("--holdout", "--oos", "--split").contains(words[i])) {
        Path file = REPO.resolve(words[++i]).normalize();
        if (!Files.isRegularFile(file)) {
          Datasets.require(false, file.toString());
        }
        args.add(file.toString());
      }
    }
    Path written = tmp.resolve(Calibrator.FILE);
    args.addAll(List.of("--out", written.toString(), "--index-dir", "target"));
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<SemanticCalibration.Result> rerun = new ArrayList<>();
    Calibrator.OBSERVER.set(rerun::addAll);
    int status;
    try {
      status =
          FaqCli.run(
              args.toArray(String[]::new),
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
              new PrintStream(log, true, StandardCharsets.UTF_8));
    } finally {
      Calibrator.OBSERVER.remove();
    }
    System.out.print(log.toString(StandardCharsets.UTF_8));

    assertThat(status).isZero();
    assertThat(exact(Files.readAllLines(written, StandardCharsets.UTF_8))).isEqualTo(exact(lines));
    assertThat(rerun).isNotEmpty();
    for (SemanticCalibration.Result r : rerun) {
      assertNearBest(r, lines);
    }
  }

  /**
   * The committed semantic numbers score, on this machine's rerun, as the search scores its
   * candidates: their fusion (kNN size, temperature, weights) has a top-1 tied with the best
   * fusion's; their thresholds answer enough in-scope questions, abstain on as many out-of-scope
   * ones as the best thresholds for that fusion and answer as many in-scope ones (tied); and the
   * committed figures are those of the committed numbers.
   */
  private static void assertNearBest(SemanticCalibration.Result rerun, List<String> lines) {
    String id = rerun.modelId();
    SemanticCandidates candidates = rerun.candidates();
    SemanticSettings mine =
        SemanticSettings.parse(id, value(lines, "semantic." + id + "=").orElseThrow());
    assertThat(candidates.scoresFaithfully(mine)).as("%s scored as searched", mine).isTrue();
    SemanticCandidates.Score score = candidates.score(mine);
    SemanticCandidates.Score best = candidates.score(rerun.settings());
    SemanticCandidates.Score bestThresholds = candidates.score(candidates.withBestThresholds(mine));
    double tie = Math.max(TIE, 1.0 / candidates.inScope());
    System.out.printf(
        Locale.ROOT,
        "semantic %s: committed %s: top-1 %.4f, answered %.4f, out of scope abstained %.4f; rerun's"
            + " best %s: top-1 %.4f; best for the committed fusion: answered %.4f, out of scope"
            + " abstained %.4f; tie %.5f; figures at the committed numbers: %s%n",
        id,
        mine.row(),
        score.top1(),
        score.answered(),
        score.oosAbstention(),
        rerun.settings().row(),
        best.top1(),
        bestThresholds.answered(),
        bestThresholds.oosAbstention(),
        tie,
        score.figures());
    assertThat(score.top1())
        .as("committed fusion's top-1")
        .isGreaterThanOrEqualTo(best.top1() - tie);
    assertThat(score.answered())
        .as("in scope answered")
        .isGreaterThanOrEqualTo(candidates.minAnswered());
    // the thresholds' first objective, without a tie: a threshold decides differently only for a
    // question whose score lies within the last bits of a grid value, far rarer than a near-tie
    // between two of the 3,696 fusions
    assertThat(score.oosAbstention())
        .as("out of scope abstained")
        .isGreaterThanOrEqualTo(bestThresholds.oosAbstention() - 1e-9);
    assertThat(score.answered())
        .as("in scope answered, against the best thresholds for the committed fusion")
        .isGreaterThanOrEqualTo(bestThresholds.answered() - tie);
    String prefix = "# semantic " + id + ": ";
    String figures = value(lines, prefix).orElseThrow();
    String rerunFigures = score.figures().toString();
    assertThat(FIGURE.matcher(figures).replaceAll("#"))
        .isEqualTo(FIGURE.matcher(rerunFigures).replaceAll("#"));
    List<Long> committedValues = hundredths(figures);
    List<Long> rerunValues = hundredths(rerunFigures);
    for (int i = 0; i < committedValues.size(); i++) {
      assertThat(committedValues.get(i))
          .as("figure %d of committed '%s', rerun '%s'", i, figures, rerunFigures)
          .isBetween(
              rerunValues.get(i) - FIGURE_HUNDREDTHS, rerunValues.get(i) + FIGURE_HUNDREDTHS);
    }
  }

  private static Optional<String> value(List<String> lines, String prefix) {
    return lines.stream()
        .filter(l -> l.startsWith(prefix))
        .map(l -> l.substring(prefix.length()))
        .findFirst();
  }

  private static List<Long> hundredths(String text) {
    return FIGURE
        .matcher(text)
        .results()
        .map(m -> Math.round(100 * Double.parseDouble(m.group())))
        .toList();
  }

  /**
   * The lines but the command line, with the semantic figures and numbers cut after their model id
   * ({@link #assertNearBest} checks them).
   */
  private static List<String> exact(List<String> lines) {
    return lines.stream()
        .filter(l -> !l.startsWith("#   bin/faq calibrate "))
        .map(
            l ->
                l.startsWith("# semantic ")
                    ? l.substring(0, l.indexOf(':') + 1)
                    : l.startsWith("semantic.") ? l.substring(0, l.indexOf('=') + 1) : l)
        .toList();
  }
}
