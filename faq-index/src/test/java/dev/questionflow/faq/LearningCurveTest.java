package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A small learning curve ({@link LearningCurve}): twelve BANKING77 entries start from one phrasing
 * each, their other phrasings are replayed, and filing the missed ones through the overlay must
 * lift the hit rate above the same matcher that does not learn.
 */
class LearningCurveTest {

  private static final int START_PHRASINGS = 1;
  private static final int BLOCK = 150;

  private static FaqPack twelveEntries() {
    FaqPack pack = FaqPacks.loadFromClasspath("banking77");
    return new FaqPack(
        pack.id(),
        pack.name(),
        pack.language(),
        pack.attribution(),
        pack.entries().subList(0, 12),
        pack.intentRules());
  }

  @Test
  void theStartingPackKeepsTheFirstPhrasingsAndTheRestAreTheStreamWithoutThem() {
    FaqPack pack = twelveEntries();
    FaqPack start = LearningCurve.startingPack(pack, 3);
    List<LabeledQuestion> rest = LearningCurve.remainingPhrasings(pack, 3, 42);

    FaqEntry first = pack.entries().get(0);
    assertThat(start.entries().get(0).phrasings()).isEqualTo(first.phrasings().subList(0, 3));
    assertThat(start.entries().get(0).question()).isEqualTo(first.question());
    assertThat(FaqEvaluation.texts(rest))
        .doesNotContainAnyElementsOf(first.phrasings().subList(0, 3));
    assertThat(rest).contains(new LabeledQuestion(first.phrasings().get(3), first.id()));
    assertThat(rest).isEqualTo(LearningCurve.remainingPhrasings(pack, 3, 42)); // seeded
    assertThat(rest).isNotEqualTo(LearningCurve.remainingPhrasings(pack, 3, 7));
  }

  @Test
  void filingTheMissedQuestionsRaisesTheKeywordHitRateAboveTheMatcherThatDoesNotLearn() {
    assertLearningPays("keyword", 600);
  }

  @Test
  void filingTheMissedQuestionsRaisesTheSemanticHitRateAboveTheMatcherThatDoesNotLearn() {
    assertLearningPays("semantic", 450);
  }

  private static void assertLearningPays(String level, int questions) {
    FaqPack start = LearningCurve.startingPack(twelveEntries(), START_PHRASINGS);
    List<LabeledQuestion> stream =
        LearningCurve.remainingPhrasings(twelveEntries(), START_PHRASINGS, 42)
            .subList(0, questions);

    LearningCurve.Result learning;
    try (LearningCurve.Learner learner = learner(start, level)) {
      learning = LearningCurve.replay(learner, start, stream, BLOCK, true);
      // learned through the overlay the app applies, one phrasing per ticket
      FaqOverlay applied = overlayOf(learner);
      assertThat(applied.phrasings()).hasSize(learning.learned());
    }
    LearningCurve.Result frozen;
    try (LearningCurve.Learner learner = learner(start, level)) {
      frozen = LearningCurve.replay(learner, start, stream, BLOCK, false);
    }
    System.out.printf(
        "%s: learning %s, without %s%n",
        level, hitRates(learning), hitRates(frozen)); // in the surefire output, for the curious

    int tickets = frozen.questions() - frozen.correct();
    assertThat(learning.learned()).isPositive().isLessThanOrEqualTo(tickets);
    assertThat(learning.blocks().get(0).hitRate()).isLessThan(0.9); // room to learn
    LearningCurve.Block last = learning.blocks().get(learning.blocks().size() - 1);
    LearningCurve.Block lastFrozen = frozen.blocks().get(frozen.blocks().size() - 1);
    assertThat(last.hitRate()).isGreaterThan(lastFrozen.hitRate() + 0.05);
    assertThat(last.hitRate()).isGreaterThan(learning.blocks().get(0).hitRate());
    assertThat(frozen.learned()).isZero();
  }

  @Test
  void aQuestionLabelledWithAnEntryThePackHasNotIsRejected() {
    FaqPack start = LearningCurve.startingPack(twelveEntries(), START_PHRASINGS);
    try (LearningCurve.Learner learner = learner(start, "keyword")) {
      assertThatThrownBy(
              () ->
                  LearningCurve.replay(
                      learner,
                      start,
                      List.of(new LabeledQuestion("where is my parcel", "no_such_entry")),
                      BLOCK,
                      true))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no_such_entry");
    }
  }

  private static LearningCurve.Learner learner(FaqPack start, String level) {
    return LearningCurve.learner(start, level, Path.of("target", "embedding-cache"));
  }

  private static FaqOverlay overlayOf(LearningCurve.Learner learner) {
    FaqMatcher m = learner.matcher();
    return m instanceof SemanticFaqIndex s ? s.overlay() : ((KeywordFaqIndex) m).overlay();
  }

  private static String hitRates(LearningCurve.Result r) {
    return r.blocks().stream()
        .map(b -> String.format(java.util.Locale.ROOT, "%.1f%%", 100 * b.hitRate()))
        .toList()
        .toString();
  }
}
