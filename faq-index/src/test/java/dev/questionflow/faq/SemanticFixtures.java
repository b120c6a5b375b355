package dev.questionflow.faq;

/**
 * Test helper: one shared {@link SemanticFaqIndex} over BANKING77 for all test classes of this JVM,
 * built with the default English model through {@link CachingEmbedder} (embeddings cached under
 * {@code target/embedding-cache}) and the pack's calibration. When the shared datasets are present
 * it is built WITHOUT the validation split ({@link Datasets#banking77Unseen}) so that the
 * calibration test can use it; otherwise from the full pack.
 */
final class SemanticFixtures {

  static final FaqEmbeddingModel MODEL = FaqEmbeddingModel.defaultFor("en");

  private static SemanticFaqIndex index;

  private SemanticFixtures() {}

  static synchronized SemanticFaqIndex banking77() {
    if (index == null) {
      FaqPack pack =
          Datasets.banking77Present()
              ? Datasets.banking77Unseen()
              : FaqPacks.loadFromClasspath("banking77");
      CachingEmbedder embedder = CachingEmbedder.of(MODEL);
      index =
          SemanticFaqIndex.build(
              pack, embedder, SemanticSettings.forPack(pack.id(), MODEL.id()), false);
      embedder.save();
    }
    return index;
  }
}
