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
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Calibrator}: the k-fold split never sees a held-out text, and each committed pack
 * calibration is what its own recorded command produces today (so the file is reproducible and no
 * number in it was edited by hand).
 */
class CalibratorTest {

  private static final Path REPO = Path.of("").toAbsolutePath().getParent();

  @Test
  void foldsAreStratifiedDisjointAndWithoutHeldOutTexts() {
    FaqPack pack = FaqPacks.loadFromClasspath("ecommerce-zh");
    List<String> heldOut = new ArrayList<>();
    pack.entries().forEach(e -> heldOut.add(e.phrasings().get(0)));

    List<LabeledQuestion> training = Calibrator.training(pack, new HashSet<>(heldOut));
    List<List<LabeledQuestion>> folds = Calibrator.folds(training, 5, 42);

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
    assertThat(Calibrator.folds(training, 5, 42)).isEqualTo(folds);
  }

  @Test
  void aFoldIsMatchedAgainstAnIndexWithoutIt() {
    FaqPack pack = FaqPacks.loadFromClasspath("ecommerce-zh");
    List<LabeledQuestion> training = Calibrator.training(pack, Set.of());
    List<LabeledQuestion> fold = Calibrator.folds(training, 5, 42).get(0);
    FaqPack index = FaqEvaluation.unseen(pack, fold);
    Set<String> phrasings = new HashSet<>();
    index.entries().forEach(e -> phrasings.addAll(e.phrasings()));
    assertThat(phrasings).doesNotContainAnyElementsOf(FaqEvaluation.texts(fold));
  }

  /**
   * Reruns the command recorded in the pack's calibration file (paths resolved from the repository
   * root) and compares everything but that command line.
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
      if (Set.of("--holdout", "--oos").contains(words[i])) {
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
    int status =
        FaqCli.run(
            args.toArray(String[]::new),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(log, true, StandardCharsets.UTF_8));
    System.out.print(log.toString(StandardCharsets.UTF_8));

    assertThat(status).isZero();
    assertThat(withoutCommand(Files.readAllLines(written, StandardCharsets.UTF_8)))
        .isEqualTo(withoutCommand(lines));
  }

  private static List<String> withoutCommand(List<String> lines) {
    return lines.stream().filter(l -> !l.startsWith("#   bin/faq calibrate ")).toList();
  }
}
