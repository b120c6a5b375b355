package dev.questionflow.faq;

import java.util.List;

/**
 * Test helper: one shared {@link SemanticFaqIndex} over BANKING77 for all test classes of this JVM,
 * built with the default English model through {@link CachingEmbedder} (embeddings cached under
 * {@code target/embedding-cache}). When the shared datasets are present it is built WITHOUT the
 * held-out 10% (seed 42) so that the calibration test can use it; otherwise from the full pack.
 */
final class SemanticFixtures {

  static final FaqEmbeddingModel MODEL = FaqEmbeddingModel.defaultFor("en");

  private static SemanticFaqIndex heldOut;
  private static Datasets.Split split;

  private SemanticFixtures() {}

  static synchronized SemanticFaqIndex banking77() {
    if (heldOut == null) {
      FaqPack pack = FaqPacks.loadFromClasspath("banking77");
      if (Datasets.banking77Present()) {
        split = Datasets.stratified(Datasets.banking77Train(), 0.10, 42);
        pack = Datasets.withPhrasings(pack, split.train());
      }
      CachingEmbedder embedder = CachingEmbedder.of(MODEL);
      heldOut =
          SemanticFaqIndex.build(pack, embedder, SemanticSettings.defaults(MODEL.id()), false);
      embedder.save();
    }
    return heldOut;
  }

  /** The held-out split behind {@link #banking77()}, or null when the datasets are absent. */
  static synchronized Datasets.Split split() {
    banking77();
    return split;
  }

  static List<FaqEvaluation.LabeledQuestion> labeled(List<Datasets.Example> examples) {
    return examples.stream()
        .map(e -> new FaqEvaluation.LabeledQuestion(e.text(), e.label()))
        .toList();
  }
}
