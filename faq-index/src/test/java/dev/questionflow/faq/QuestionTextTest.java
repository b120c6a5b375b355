package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/** The canonical form of a question ({@link QuestionText}), the match cache's key. */
class QuestionTextTest {

  @Test
  void spacesOfAnyKindAreTrimmedAndCollapsed() {
    assertThat(QuestionText.canonical(" where\tis \u00a0my\n card\u3000 ", false))
        .isEqualTo("where is my card");
  }

  @Test
  void fullWidthLettersAndDigitsBecomeAsciiButFullWidthPunctuationStays() {
    assertThat(QuestionText.canonical("ｉＰｈｏｎｅ１５退款了吗？", false)).isEqualTo("iPhone15退款了吗？");
  }

  @Test
  void caseIsFoldedOnlyWhenTheModelFoldsItAnyway() {
    assertThat(QuestionText.canonical("Where is my CARD", true)).isEqualTo("where is my card");
    assertThat(QuestionText.canonical("iPhone 退款", false)).isEqualTo("iPhone 退款");
  }

  /** The case rule must match the tokenizers: a wrong flag would make the cache inexact. */
  @Test
  void theModelsThatFoldCaseAreTheOnesWhoseTokenizerLowerCases() throws Exception {
    ObjectMapper json = new ObjectMapper();
    for (FaqEmbeddingModel model : FaqEmbeddingModel.values()) {
      if (!model.available()) {
        continue;
      }
      try (InputStream in =
          FaqEmbeddingModel.class
              .getClassLoader()
              .getResourceAsStream(model.resource() + "-tokenizer.json")) {
        JsonNode normalizer = json.readTree(in).get("normalizer");
        assertThat(normalizer.get("lowercase").asBoolean())
            .as(model.id())
            .isEqualTo(model.lowerCases());
      }
    }
  }
}
