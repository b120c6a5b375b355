package dev.questionflow.faq;

import java.util.Locale;

/**
 * The in-process ONNX sentence-embedding models the semantic matcher ({@link SemanticFaqIndex}) can
 * use. Each is a langchain4j Maven jar that carries the ONNX weights and tokenizer, so nothing is
 * downloaded at run time; a model is found by its resource name, so only the jars of the models
 * actually used need to be on the classpath ({@code faq-index} ships {@link #BGE_SMALL_EN_V15_Q}
 * and {@link #BGE_SMALL_ZH_V15_Q}; the others are test-scoped, used by the model comparison in
 * {@code faq-index/README.md}).
 *
 * <p>Defaults per pack language ({@link #defaultFor(String)}): {@link #BGE_SMALL_EN_V15_Q} for
 * {@code en}, {@link #BGE_SMALL_ZH_V15_Q} for {@code zh}: each matches as well as its fp32
 * original, in about half the time.
 */
public enum FaqEmbeddingModel {
  ALL_MINILM_L6_V2(
      "all-minilm-l6-v2",
      "en",
      "dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel",
      "",
      "all-minilm-l6-v2",
      false),
  ALL_MINILM_L6_V2_Q(
      "all-minilm-l6-v2-q",
      "en",
      "dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel",
      "",
      "all-minilm-l6-v2-q",
      false),
  BGE_SMALL_EN_V15(
      "bge-small-en-v1.5",
      "en",
      "dev.langchain4j.model.embedding.onnx.bgesmallenv15.BgeSmallEnV15EmbeddingModel",
      "",
      "bge-small-en-v1.5",
      true),
  BGE_SMALL_EN_V15_Q(
      "bge-small-en-v1.5-q",
      "en",
      "dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel",
      "",
      "bge-small-en-v1.5-q",
      true),
  /** e5 expects a "query: " prefix on both sides of a symmetric similarity task. */
  E5_SMALL_V2(
      "e5-small-v2",
      "en",
      "dev.langchain4j.model.embedding.onnx.e5smallv2.E5SmallV2EmbeddingModel",
      "query: ",
      "e5-small-v2",
      false),
  E5_SMALL_V2_Q(
      "e5-small-v2-q",
      "en",
      "dev.langchain4j.model.embedding.onnx.e5smallv2q.E5SmallV2QuantizedEmbeddingModel",
      "query: ",
      "e5-small-v2-q",
      false),
  BGE_SMALL_ZH_V15(
      "bge-small-zh-v1.5",
      "zh",
      "dev.langchain4j.model.embedding.onnx.bgesmallzhv15.BgeSmallZhV15EmbeddingModel",
      "",
      "bge-small-zh-v1.5",
      true),
  BGE_SMALL_ZH_V15_Q(
      "bge-small-zh-v1.5-q",
      "zh",
      "dev.langchain4j.model.embedding.onnx.bgesmallzhv15q.BgeSmallZhV15QuantizedEmbeddingModel",
      "",
      "bge-small-zh-v1.5-q",
      true);

  private final String id;
  private final String language;
  private final String className;
  private final String prefix;
  private final String resource;
  private final boolean clsPooling;

  FaqEmbeddingModel(
      String id,
      String language,
      String className,
      String prefix,
      String resource,
      boolean clsPooling) {
    this.id = id;
    this.language = language;
    this.className = className;
    this.prefix = prefix;
    this.resource = resource;
    this.clsPooling = clsPooling;
  }

  /** Base name of the jar's {@code .onnx} and {@code -tokenizer.json} resources. */
  String resource() {
    return resource;
  }

  /**
   * CLS-token pooling (bge) rather than mean pooling (MiniLM, e5), as in the langchain4j model
   * class.
   */
  boolean clsPooling() {
    return clsPooling;
  }

  /** Stable model id (part of the stored index fingerprint), e.g. {@code bge-small-en-v1.5-q}. */
  public String id() {
    return id;
  }

  /** The language the model is meant for ({@code en} or {@code zh}). */
  public String language() {
    return language;
  }

  /** Text put in front of every input (e5's {@code "query: "}), or empty. */
  String prefix() {
    return prefix;
  }

  /**
   * True when the model's tokenizer lower-cases its input ({@code BertNormalizer} with {@code
   * lowercase: true} in its {@code tokenizer.json}): the English models do, the Chinese bge does
   * not.
   */
  boolean lowerCases() {
    return "en".equals(language);
  }

  /** True when the model's jar (its ONNX file) is on the classpath. */
  public boolean available() {
    return FaqEmbeddingModel.class.getClassLoader().getResource(resource + ".onnx") != null;
  }

  /**
   * The langchain4j model class of the jar (documentation; the ONNX file is run by this library
   * directly).
   */
  public String langchain4jClass() {
    return className;
  }

  /**
   * The default model for a pack language: bge-small-zh-v1.5 for {@code zh}, bge-small-en-v1.5
   * else, both quantized.
   */
  public static FaqEmbeddingModel defaultFor(String language) {
    return "zh".equals(language) ? BGE_SMALL_ZH_V15_Q : BGE_SMALL_EN_V15_Q;
  }

  /** The model with this id ({@link #id()}) or enum name, case-insensitive. */
  public static FaqEmbeddingModel fromId(String idOrName) {
    for (FaqEmbeddingModel m : values()) {
      if (m.id.equalsIgnoreCase(idOrName) || m.name().equalsIgnoreCase(idOrName)) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "Unknown embedding model '"
            + idOrName
            + "', expected one of "
            + java.util.Arrays.stream(values()).map(FaqEmbeddingModel::id).toList());
  }

  @Override
  public String toString() {
    return id.toLowerCase(Locale.ROOT);
  }
}
