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
