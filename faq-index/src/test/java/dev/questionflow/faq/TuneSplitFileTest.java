package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The calibration side that {@code bin/faq tune} (faq-index/tune/tune.py) keeps out of the
 * encoder's tuning: {@code packs/<pack>/eval/tune-heldout.tsv}, 20 % of the pack's phrasings
 * without the validation file, stratified by entry. Checked here without Python: no validation
 * question is in it (not even in another case), each line is a phrasing of the entry it is labelled
 * with, and each entry gives about a fifth of its phrasings.
 */
class TuneSplitFileTest {

  @ParameterizedTest
  @CsvSource({
    "banking77, eval/banking77-validation.tsv",
    "ecommerce-zh, packs/ecommerce-zh/eval/paraphrases.tsv"
  })
  void heldOutSideIsPhrasingsOfTheRightEntryWithoutAnyValidationQuestion(
      String packId, String validationFile) {
    FaqPack pack = FaqPacks.loadFromClasspath(packId);
    List<LabeledQuestion> validation = FaqEvaluation.readLabeled(Path.of(validationFile));
    List<LabeledQuestion> heldOut =
        FaqEvaluation.readLabeled(Path.of("packs", packId, "eval", "tune-heldout.tsv"));

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
