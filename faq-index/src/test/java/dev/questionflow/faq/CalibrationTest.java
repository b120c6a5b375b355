package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The keyword level's figures in faq-index/README.md, with the pack's calibration ({@link
 * Calibrator}, k-fold on the training side): the validation split is removed from the pack's
 * phrasings ({@link Datasets#banking77Unseen}, as {@code bin/faq eval} does) and matched, and
 * CLINC150 out-of-scope questions must be abstained on. Skipped when {@code shared/datasets} is
 * absent.
 */
class CalibrationTest {

  @Test
  void heldOutAccuracyAnswerRateAndOosAbstention() {
    Datasets.require(
        Datasets.banking77Present() && Datasets.oosPresent(),
        "the BANKING77 and CLINC150 datasets");
    FaqPack trainPack = Datasets.banking77Unseen();
    List<FaqEvaluation.LabeledQuestion> validation = Datasets.banking77Validation();

    try (KeywordFaqIndex idx = KeywordFaqIndex.build(trainPack)) {
      int top1 = 0;
      int answered = 0;
      int answeredCorrect = 0;
      for (FaqEvaluation.LabeledQuestion e : validation) {
        List<FaqMatch> ranked = idx.search(e.text(), 1);
        if (!ranked.isEmpty() && ranked.get(0).faqId().equals(e.faqId())) {
          top1++;
        }
        var best = idx.best(e.text());
        if (best.isPresent()) {
          answered++;
          if (best.get().faqId().equals(e.faqId())) {
            answeredCorrect++;
          }
        }
      }
      int n = validation.size();
      double accuracy = top1 / (double) n;
      double answerRate = answered / (double) n;
      double precision = answered == 0 ? 0 : answeredCorrect / (double) answered;
      double oosVal = abstentionRate(idx, Datasets.oos("oos_val.tsv"));
      double oosTrain = abstentionRate(idx, Datasets.oos("oos_train.tsv"));

      System.out.printf("CALIBRATION validation questions %d%n", n);
      System.out.printf("CALIBRATION top-1 accuracy (no abstention)   %.1f%%%n", 100 * accuracy);
      System.out.printf("CALIBRATION in-scope answer rate (best())    %.1f%%%n", 100 * answerRate);
      System.out.printf("CALIBRATION accuracy of answered             %.1f%%%n", 100 * precision);
      System.out.printf(
          "CALIBRATION correct answers of all in-scope  %.1f%%%n",
          100 * answeredCorrect / (double) n);
      System.out.printf(
          "CALIBRATION OOS abstention oos_val / oos_train %.0f%% / %.0f%%%n",
          100 * oosVal, 100 * oosTrain);

      assertThat(accuracy).isGreaterThanOrEqualTo(0.80);
      assertThat(answerRate).isGreaterThanOrEqualTo(0.85);
      assertThat(precision).isGreaterThanOrEqualTo(0.80);
      assertThat(oosVal).isGreaterThanOrEqualTo(0.85);
    }
  }

  private static double abstentionRate(KeywordFaqIndex idx, List<String> questions) {
    long abstained = questions.stream().filter(q -> idx.best(q).isEmpty()).count();
    return abstained / (double) questions.size();
  }
}
