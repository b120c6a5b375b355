package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The L3 figures of faq-index/README.md: {@link SemanticFaqIndex} with the default English model,
 * built without a stratified 10% of BANKING77 train.csv (seed 42, the same split as {@link
 * CalibrationTest}), evaluated on that held-out 10% and on CLINC150 out-of-scope questions. The
 * settings were tuned on a nested split of the training side and {@code oos_train} ({@link
 * SemanticTuningHarness}); {@code oos_val} and the held-out split were not used for tuning. Skipped
 * when {@code shared/datasets} is absent.
 */
class SemanticCalibrationTest {

  @Test
  void heldOutAccuracyAnswerRateAndOosAbstention() {
    Datasets.require(
        Datasets.banking77Present() && Datasets.oosPresent(),
        "the BANKING77 and CLINC150 datasets");
    SemanticFaqIndex idx = SemanticFixtures.banking77();
    Datasets.Split split = SemanticFixtures.split();
    FaqEvaluation.Report heldOut =
        FaqEvaluation.evaluate(
            idx, SemanticFixtures.labeled(split.validation()), Datasets.oos("oos_val.tsv"));
    FaqEvaluation.Report oosTrain =
        FaqEvaluation.evaluate(idx, java.util.List.of(), Datasets.oos("oos_train.tsv"));
    System.out.printf(
        "SEMANTIC model %s, held-out split (train phrasings %d)%n%s",
        idx.modelId(), split.train().size(), heldOut.summary());
    System.out.printf(
        "SEMANTIC OOS abstention oos_train (calibration set) %.1f%%%n",
        100 * oosTrain.oosAbstention());

    assertThat(heldOut.accuracy()).as("top-1 accuracy").isGreaterThanOrEqualTo(TARGET_ACCURACY);
    assertThat(heldOut.answerRate()).as("in-scope answer rate").isGreaterThanOrEqualTo(0.99);
    assertThat(heldOut.oosAbstention()).as("oos_val abstention").isGreaterThanOrEqualTo(0.97);
  }

  /** Issue target: 94%. */
  static final double TARGET_ACCURACY = 0.94;
}
