package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The L3 figures of faq-index/README.md: {@link SemanticFaqIndex} with the default English model
 * and the pack's calibration, built without the validation split ({@link Datasets#banking77Unseen},
 * as {@code bin/faq eval} does), evaluated on it and on CLINC150 {@code oos_val}. The calibration
 * was chosen by k-fold cross-validation on the training side and {@code oos_train} ({@link
 * Calibrator}); the validation split and {@code oos_val} play no part in it. The floors are the
 * measure issue 31's closing note proposes: what an encoder of bge-small's size reaches on
 * BANKING77 (faq-index/tune/README.md, "What the four runs say").
 */
class SemanticCalibrationTest {

  @Test
  void heldOutAccuracyAnswerRateAndOosAbstention() {
    Datasets.require(
        Datasets.banking77Present() && Datasets.oosPresent(),
        "the BANKING77 and CLINC150 datasets");
    SemanticFaqIndex idx = SemanticFixtures.banking77();
    FaqEvaluation.Report heldOut =
        FaqEvaluation.evaluate(idx, Datasets.banking77Validation(), Datasets.oos("oos_val.tsv"));
    FaqEvaluation.Report oosTrain =
        FaqEvaluation.evaluate(idx, java.util.List.of(), Datasets.oos("oos_train.tsv"));
    System.out.printf("SEMANTIC model %s, validation split%n%s", idx.modelId(), heldOut.summary());
    System.out.printf(
        "SEMANTIC OOS abstention oos_train (calibration set) %.1f%%%n",
        100 * oosTrain.oosAbstention());

    assertThat(heldOut.accuracy()).as("top-1 accuracy").isGreaterThanOrEqualTo(TARGET_ACCURACY);
    assertThat(heldOut.answerRate()).as("in-scope answer rate").isGreaterThanOrEqualTo(0.99);
    // with the k-fold calibration, bin/faq eval measured top-1 93.23 %, answered 99.30 %, oos_val
    // 100 %; this test's index (from train.csv) 93.13 %, 99.20 %, 100 % (7 December 2026)
    assertThat(heldOut.oosAbstention()).as("oos_val abstention").isGreaterThanOrEqualTo(0.98);
  }

  /**
   * A floor below the measured 93.13-93.23 %: bge-small embeddings with a linear head reach about
   * 93 % on BANKING77's test split. Issue 31's 94.5 % was not reached by three tuned encoders.
   */
  static final double TARGET_ACCURACY = 0.93;
}
