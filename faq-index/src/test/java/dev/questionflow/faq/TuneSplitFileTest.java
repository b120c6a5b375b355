package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The calibration side that {@code bin/faq tune} (faq-index/tune/tune.py) keeps out of the
 * encoder's tuning: {@code packs/banking77/eval/tune-heldout.tsv}, 20 % of the pack's phrasings
 * without the validation file, stratified by entry. Checked here without Python: no validation
 * question is in it (not even in another case), each line is a phrasing of the entry it is labelled
 * with, and each entry gives about a fifth of its phrasings.
 */
class TuneSplitFileTest {

  static final Path HELDOUT = Path.of("packs", "banking77", "eval", "tune-heldout.tsv");
  static final Path VALIDATION = Path.of("eval", "banking77-validation.tsv");

  @Test
  void heldOutSideIsPhrasingsOfTheRightEntryWithoutAnyValidationQuestion() {
    Assumptions.assumeTrue(Files.isRegularFile(HELDOUT), "no tune split written yet");
    FaqPack pack = FaqPacks.loadFromClasspath("banking77");
    List<LabeledQuestion> validation = FaqEvaluation.readLabeled(VALIDATION);
    List<LabeledQuestion> heldOut = FaqEvaluation.readLabeled(HELDOUT);

    Set<String> validationTexts = new HashSet<>();
    validation.forEach(q -> validationTexts.add(lower(q.text())));
    Map<String, Set<String>> phrasings = new HashMap<>();
    Map<String, Integer> unseen = new HashMap<>();
    for (FaqEntry e : pack.entries()) {
      Set<String> ps = new HashSet<>();
      e.phrasings().forEach(p -> ps.add(FaqEvaluation.normalise(p)));
      phrasings.put(e.id(), ps);
      unseen.put(
          e.id(), (int) ps.stream().filter(p -> !validationTexts.contains(lower(p))).count());
    }

    Map<String, Integer> perEntry = new HashMap<>();
    for (LabeledQuestion q : heldOut) {
      assertThat(validationTexts)
          .as("validation question in the tune split")
          .doesNotContain(lower(q.text()));
      assertThat(phrasings.get(q.faqId())).as(q.text()).contains(FaqEvaluation.normalise(q.text()));
      perEntry.merge(q.faqId(), 1, Integer::sum);
    }
    assertThat(new HashSet<>(heldOut)).hasSameSizeAs(heldOut);
    for (FaqEntry e : pack.entries()) {
      int n = unseen.get(e.id());
      assertThat(perEntry.getOrDefault(e.id(), 0)).as(e.id()).isEqualTo((int) Math.round(n * 0.2));
    }
  }

  private static String lower(String s) {
    return FaqEvaluation.normalise(s).toLowerCase(Locale.ROOT);
  }
}
