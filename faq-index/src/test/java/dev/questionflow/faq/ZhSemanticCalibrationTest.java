package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Chinese L3 figures of faq-index/README.md: {@link SemanticFaqIndex} with bge-small-zh-v1.5-q
 * and the pack's calibration over the ecommerce-zh pack, on the labelled paraphrases ({@code
 * packs/ecommerce-zh/eval/paraphrases.tsv}, none of them a pack phrasing) and the out-of-scope
 * questions beside them. The calibration ({@link Calibrator}) is chosen on the pack's phrasings and
 * its out-of-scope examples alone; the eval files play no part in choosing it.
 */
class ZhSemanticCalibrationTest {

  static CachingEmbedder embedder;
  static FaqPack pack;

  @BeforeAll
  static void load() {
    pack = FaqPacks.loadFromClasspath("ecommerce-zh");
    embedder = CachingEmbedder.of(FaqEmbeddingModel.defaultFor("zh"));
  }

  @AfterAll
  static void save() {
    embedder.save();
  }

  @Test
  void paraphrasesAndOutOfScope() throws IOException {
    try (SemanticFaqIndex idx =
        SemanticFaqIndex.build(
            pack, embedder, SemanticSettings.forPack(pack.id(), embedder.modelId()), false)) {
      List<FaqEvaluation.LabeledQuestion> labeled =
          EcommerceZhPackTest.paraphrases().stream()
              .map(l -> new FaqEvaluation.LabeledQuestion(l.text(), l.label()))
              .toList();
      FaqEvaluation.Report r =
          FaqEvaluation.evaluate(idx, labeled, EcommerceZhPackTest.outOfScope());
      System.out.printf(
          "ZH semantic (%s) on eval/paraphrases.tsv + eval/out_of_scope.tsv%n%s",
          idx.modelId(), r.summary());
      // measured on 371 paraphrases and 112 out of scope with bge-small-zh-v1.5-q: top-1 96.77 %,
      // answered 99.46 %, correct answers of all 96.23 %, out-of-scope abstention 97.32 % (89.29 %
      // before the pack carried out-of-scope examples; issue 16's goals: 92 %, 97 %, 95 %)
      assertThat(r.accuracy()).as("top-1").isGreaterThanOrEqualTo(0.92);
      assertThat(r.correctAnswered())
          .as("correct answers (abstentions count as wrong)")
          .isGreaterThanOrEqualTo(0.90);
      assertThat(r.answerRate()).as("answered").isGreaterThanOrEqualTo(0.97);
      assertThat(r.oosAbstention()).as("out-of-scope abstention").isGreaterThanOrEqualTo(0.95);
    }
  }
}
