package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The calibrated defaults come from the data file, and each wither changes only its own numbers.
 */
class SemanticSettingsTest {

  @Test
  void theDefaultsOfAModelAreItsRowAndAnyOtherModelGetsTheDefaultRow() {
    SemanticSettings zh = SemanticSettings.defaults("bge-small-zh-v1.5-q");
    assertThat(zh.minSimilarity()).isEqualTo(0.65);
    assertThat(zh.knnK()).isEqualTo(30);
    SemanticSettings en = SemanticSettings.defaults("bge-small-en-v1.5-q");
    assertThat(en).isEqualTo(SemanticSettings.defaults("a-model-without-a-row"));
    assertThat(en.minSimilarity()).isEqualTo(0.79);
    assertThat(en.wKeyword()).isEqualTo(0.70);
    assertThat(en.classifier()).isEqualTo(SoftmaxClassifier.Params.DEFAULT);
    // rows of nine numbers predate the out-of-scope gap: it is off for them
    assertThat(en.minOutOfScopeGap()).isEqualTo(SemanticSettings.NO_OUT_OF_SCOPE_GAP);
    assertThat(en.answers(1, 1, 1, 1)).isTrue();
  }

  @Test
  void theOutOfScopeGapAbstainsWhenAnExampleIsAboutAsNearAsThePhrasing() {
    SemanticSettings s =
        SemanticSettings.defaults("bge-small-en-v1.5-q")
            .withThresholds(0, 0.5, 0.5, 0)
            .withOutOfScopeGap(0.02);
    assertThat(s.answers(0.9, 0.80, 0, Fusion.Nearest.NONE)).as("no example near").isTrue();
    assertThat(s.answers(0.9, 0.80, 0, 0.70)).as("examples farther").isTrue();
    assertThat(s.answers(0.9, 0.80, 0, 0.79)).as("an example about as near").isFalse();
    assertThat(s.answers(0.9, 0.80, 0, 0.85)).as("an example nearer").isFalse();
    assertThat(s.withOutOfScopeGap(0.02).row()).endsWith(" 0.02");
  }

  @Test
  void eachWitherChangesOnlyItsOwnNumbers() {
    SemanticSettings base = SemanticSettings.defaults("e5-small-v2-q");
    SemanticSettings weights = base.withWeights(0.1, 0.2, 0.7);
    assertThat(weights.withWeights(base.wClassifier(), base.wKnn(), base.wKeyword()))
        .isEqualTo(base);
    assertThat(weights.wKeyword()).isEqualTo(0.7);
    assertThat(weights.knnK()).isEqualTo(base.knnK());
    assertThat(weights.minScore()).isEqualTo(base.minScore());

    SemanticSettings knn = base.withKnn(7, 0.5);
    assertThat(knn.knnK()).isEqualTo(7);
    assertThat(knn.knnTemp()).isEqualTo(0.5);
    assertThat(knn.wClassifier()).isEqualTo(base.wClassifier());

    SemanticSettings thresholds = base.withThresholds(0.2, 0.3, 0.4, 0.5);
    assertThat(thresholds.minKeyword()).isEqualTo(0.5);
    assertThat(thresholds.minScore()).isEqualTo(0.2);
    assertThat(thresholds.wKeyword()).isEqualTo(base.wKeyword());
    assertThat(thresholds.knnTemp()).isEqualTo(base.knnTemp());
  }
}
