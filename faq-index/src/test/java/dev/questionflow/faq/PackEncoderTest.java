package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pack's tuned encoder ({@code pack.json} "encoder"): the named file is what runs, its checksum
 * is enforced, and a new model changes the index fingerprint so the stored index is rebuilt.
 */
class PackEncoderTest {

  private static final String QUANTIZED = "bge-small-en-v1.5-q.onnx";
  private static final String FP32 = "bge-small-en-v1.5.onnx"; // test dependency: another model

  @TempDir Path tmp;

  @Test
  void theFileNamedInPackJsonIsTheModelThatRuns() throws IOException {
    byte[] quantized = resource(QUANTIZED);
    FaqPack same = pack(tmp.resolve("same"), quantized, PackEncoder.sha256(quantized));
    FaqPack other = pack(tmp.resolve("other"), resource(FP32), PackEncoder.sha256(resource(FP32)));
    String question = "my card has not arrived yet";
    try (Embedder base = Embedder.of(FaqEmbeddingModel.BGE_SMALL_EN_V15_Q);
        Embedder fromSame = Embedder.of(same);
        Embedder fromOther = Embedder.of(other)) {
      assertThat(fromSame.modelId())
          .isEqualTo("tiny-tuned-" + PackEncoder.sha256(quantized).substring(0, 12));
      assertThat(fromSame.model()).isEqualTo(FaqEmbeddingModel.BGE_SMALL_EN_V15_Q);
      // the same bytes give the base model's vectors; other bytes give other vectors
      assertThat(fromSame.embed(question)).containsExactly(base.embed(question));
      float[] a = base.embed(question);
      float[] b = fromOther.embed(question);
      assertThat(b).isNotEqualTo(a);
      assertThat(dot(a, b)).isGreaterThan(0.95); // same architecture and tokenizer
    }
  }

  @Test
  void aModelThatDoesNotMatchItsChecksumIsRefused() throws IOException {
    byte[] quantized = resource(QUANTIZED);
    FaqPack wrong = pack(tmp.resolve("wrong"), quantized, PackEncoder.sha256(resource(FP32)));
    assertThatThrownBy(() -> Embedder.of(wrong))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(PackEncoder.sha256(quantized))
        .hasMessageContaining("pack.json records " + PackEncoder.sha256(resource(FP32)));
    Files.delete(tmp.resolve("wrong/encoder/model.onnx"));
    assertThatThrownBy(() -> Embedder.of(wrong))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("missing");
  }

  @Test
  void aNewModelRebuildsTheStoredIndexAndTheSameModelReusesIt() throws IOException {
    Path indexDir = tmp.resolve("index");
    byte[] quantized = resource(QUANTIZED);
    byte[] fp32 = resource(FP32);
    Path packDir = tmp.resolve("pack");
    FaqPack first = pack(packDir, quantized, PackEncoder.sha256(quantized));
    try (SemanticFaqIndex idx = SemanticFaqIndex.open(first, indexDir)) {
      assertThat(idx.rebuilt()).isTrue();
      assertThat(idx.modelId()).isEqualTo(first.encoderId());
      assertThat(idx.best("my new card has not come")).map(FaqMatch::faqId).contains("card");
    }
    try (SemanticFaqIndex idx = SemanticFaqIndex.open(first, indexDir)) {
      assertThat(idx.rebuilt()).isFalse();
    }
    FaqPack retuned = pack(packDir, fp32, PackEncoder.sha256(fp32));
    assertThat(retuned.encoderId()).isNotEqualTo(first.encoderId());
    try (SemanticFaqIndex idx = SemanticFaqIndex.open(retuned, indexDir)) {
      assertThat(idx.rebuilt()).isTrue();
      assertThat(idx.modelId()).isEqualTo(retuned.encoderId());
      // learning from tickets: a phrasing staff add is embedded by the same (pack) encoder
      String learned = "a swallow flew off with the envelope";
      assertThat(idx.best(learned)).map(FaqMatch::faqId).isNotEqualTo(Optional.of("card"));
      idx.apply(new FaqOverlay(List.of(), List.of(new FaqOverlay.Phrasing("card", learned))));
      assertThat(idx.best(learned)).map(FaqMatch::faqId).contains("card");
    }
    // the language default is yet another model: rebuilt too
    try (SemanticFaqIndex idx = SemanticFaqIndex.open(retuned.withDefaultEncoder(), indexDir)) {
      assertThat(idx.rebuilt()).isTrue();
      assertThat(idx.modelId()).isEqualTo("bge-small-en-v1.5-q");
    }
  }

  @Test
  void packJsonEncoderErrorsAreReportedWithTheFile() throws IOException {
    String sha = "a".repeat(64);
    assertInvalid(
        "{\"file\": \"../model.onnx\", \"sha256\": \""
            + sha
            + "\", \"base\": \"bge-small-en-v1.5-q\"}",
        "inside the pack folder");
    assertInvalid(
        "{\"file\": \"encoder/model.onnx\", \"sha256\": \"abc\", \"base\": \"bge-small-en-v1.5-q\"}",
        "64 hex digits");
    assertInvalid(
        "{\"file\": \"encoder/model.onnx\", \"sha256\": \""
            + sha
            + "\", \"base\": \"bge-small-zh-v1.5-q\"}",
        "is for zh, not en");
    assertInvalid(
        "{\"file\": \"encoder/model.onnx\", \"sha256\": \"" + sha + "\"}", "encoder.base");
    assertInvalid(
        "{\"file\": \"encoder/model.onnx\", \"sha256\": \""
            + sha
            + "\", \"base\": \"bge-small-en-v1.5-q\", \"pooling\": \"max\"}",
        "pooling");
  }

  private void assertInvalid(String encoderJson, String message) throws IOException {
    Path dir = Files.createTempDirectory(tmp, "bad");
    writePack(dir, encoderJson);
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(dir.resolve("pack.json").toString())
        .hasMessageContaining(message);
  }

  /** A two-entry pack in {@code dir} whose encoder is {@code model} recorded with {@code sha}. */
  private static FaqPack pack(Path dir, byte[] model, String sha) throws IOException {
    Files.createDirectories(dir.resolve("encoder"));
    Files.write(dir.resolve("encoder/model.onnx"), model);
    writePack(
        dir,
        "{\"file\": \"encoder/model.onnx\", \"sha256\": \""
            + sha
            + "\", \"base\": \"bge-small-en-v1.5-q\", \"pooling\": \"cls\"}");
    return FaqPacks.loadFromDirectory(dir);
  }

  private static void writePack(Path dir, String encoderJson) throws IOException {
    Files.writeString(
        dir.resolve("pack.json"),
        "{\"id\": \"tiny\", \"language\": \"en\", \"encoder\": " + encoderJson + "}\n",
        StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("entries.jsonl"),
        """
        {"id": "card", "question": "Where is my card?", "answer": "It arrives within 7 days.", "phrasings": ["my new card has not arrived", "when will my card come"]}
        {"id": "password", "question": "How do I reset my password?", "answer": "Use 'forgot password'.", "phrasings": ["I forgot my password", "reset my login"]}
        """,
        StandardCharsets.UTF_8);
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = PackEncoderTest.class.getClassLoader().getResourceAsStream(name)) {
      assertThat(in).as(name + " on the test classpath").isNotNull();
      return in.readAllBytes();
    }
  }

  private static double dot(float[] a, float[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }
}
