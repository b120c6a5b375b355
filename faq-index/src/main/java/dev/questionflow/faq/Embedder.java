package dev.questionflow.faq;

import java.util.List;

/**
 * Text -> unit-length vector (package-private seam: tests wrap it with an on-disk cache).
 * Implementations are thread-safe.
 */
interface Embedder extends AutoCloseable {

  /**
   * The model whose tokenizer, prefix and language these vectors use: for a pack's tuned encoder,
   * its base model (the vectors are the tuned weights'; {@link #modelId()} tells them apart).
   */
  FaqEmbeddingModel model();

  /** Id of the model (part of the stored index fingerprint). */
  default String modelId() {
    return model().id();
  }

  /** L2-normalised embedding of one text. */
  float[] embed(String text);

  /** L2-normalised embeddings, in order. */
  List<float[]> embedAll(List<String> texts);

  /** True when the model's tokenizer lower-cases its input, so case does not change a vector. */
  default boolean lowerCases() {
    return model().lowerCases();
  }

  @Override
  default void close() {}

  /** The model's ONNX weights and tokenizer run in-process (see {@link OnnxEncoder}). */
  static Embedder of(FaqEmbeddingModel model) {
    offline();
    return new OnnxEncoder(model, threads());
  }

  /** The pack's tuned encoder when its pack.json names one, else its language's default model. */
  static Embedder of(FaqPack pack) {
    if (pack.encoder() == null) {
      return of(FaqEmbeddingModel.defaultFor(pack.language()));
    }
    offline();
    return new OnnxEncoder(pack.encoder(), threads());
  }

  private static int threads() {
    return Integer.getInteger("faq.onnx.threads", OnnxEncoder.DEFAULT_INTRA_OP_THREADS);
  }

  private static void offline() {
    if (System.getProperty("ai.djl.offline") == null) {
      System.setProperty("ai.djl.offline", "true"); // the tokenizer library never tries the network
    }
  }

  static float[] normalise(float[] v) {
    double n = 0;
    for (float x : v) {
      n += x * x;
    }
    n = Math.sqrt(n);
    if (n > 0) {
      for (int i = 0; i < v.length; i++) {
        v[i] = (float) (v[i] / n);
      }
    }
    return v;
  }
}
