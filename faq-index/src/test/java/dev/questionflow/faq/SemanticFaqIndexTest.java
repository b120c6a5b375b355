package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SemanticFaqIndexTest {

  @TempDir Path tmp;

  @Test
  void cardQuestionMatchesCardArrival() {
    SemanticFaqIndex idx = SemanticFixtures.banking77();
    assertThat(idx.level()).isEqualTo("semantic");
    Optional<FaqMatch> best = idx.best("I still have not received my new card, when will it come?");
    assertThat(best).isPresent();
    assertThat(best.get().faqId()).isEqualTo("card_arrival");
    assertThat(best.get().score()).isBetween(0.0, 1.0);
    assertThat(best.get().entry().answer()).isNotBlank();
    List<FaqMatch> ranked = idx.search("my card still hasn't arrived", 5);
    assertThat(ranked).hasSize(5);
    assertThat(ranked.get(0).faqId()).isEqualTo("card_arrival");
    assertThat(ranked).extracting(FaqMatch::faqId).doesNotHaveDuplicates();
    for (int i = 1; i < ranked.size(); i++) {
      assertThat(ranked.get(i).score()).isLessThanOrEqualTo(ranked.get(i - 1).score());
    }
  }

  @Test
  void paraphraseWithoutSharedWordsIsMatched() {
    // BM25 alone has little to go on here ("plastic", "mailed", "showed up"); the embedding carries
    // it
    assertThat(SemanticFixtures.banking77().search("the plastic you mailed me never showed up", 1))
        .extracting(FaqMatch::faqId)
        .containsExactly("card_arrival");
  }

  @Test
  void outOfScopeQuestionsAbstain() {
    SemanticFaqIndex idx = SemanticFixtures.banking77();
    for (String q :
        List.of(
            "what's the weather like in paris tomorrow",
            "play some jazz music",
            "how many calories are in a banana",
            "tell me a joke about cats")) {
      assertThat(idx.best(q)).as(q).isEmpty();
    }
  }

  @Test
  void aQuestionAsNearToAnOutOfScopeExampleAsToAnyPhrasingAbstains() {
    FaqPack pack = tinyPack("Where is my card?", "How do I reset my password?");
    FaqPack withExamples =
        new FaqPack(
            pack.id(),
            pack.name(),
            pack.language(),
            null,
            pack.entries(),
            List.of(),
            List.of("what will the weather be like tomorrow", "is it going to rain this weekend"));
    // thresholds that answer everything, so only the gap to the examples decides
    SemanticSettings settings =
        SemanticSettings.defaults(SemanticFixtures.MODEL.id())
            .withThresholds(0, 0, 0, 0)
            .withOutOfScopeGap(0.0);
    String offTopic = "will it rain tomorrow";
    try (Embedder embedder = Embedder.of(SemanticFixtures.MODEL);
        SemanticFaqIndex without = SemanticFaqIndex.build(pack, embedder, settings, false);
        SemanticFaqIndex with = SemanticFaqIndex.build(withExamples, embedder, settings, false)) {
      assertThat(without.best(offTopic)).as("no examples: answered").isPresent();
      assertThat(with.best(offTopic)).as("nearest an example: abstains").isEmpty();
      assertThat(with.best("my card has still not arrived")).map(FaqMatch::faqId).contains("card");
      // the examples are documents of no entry: never a candidate
      assertThat(with.search(offTopic, 5))
          .extracting(FaqMatch::faqId)
          .containsOnly("card", "password");
    }
    // a stored index is rebuilt when the examples change
    assertThat(SemanticIndexWriter.fingerprint(withExamples, SemanticFixtures.MODEL.id(), settings))
        .isNotEqualTo(SemanticIndexWriter.fingerprint(pack, SemanticFixtures.MODEL.id(), settings));
  }

  @Test
  void weirdInputDoesNotThrow() {
    SemanticFaqIndex idx = SemanticFixtures.banking77();
    for (String q :
        new String[] {
          null,
          "",
          "   ",
          "\u0000\u0001",
          "???!!!",
          "AND OR NOT *:* \"",
          "卡还没到",
          "😀😀😀",
          "a".repeat(20_000),
          "card ".repeat(3000),
          "\uD800",
          "<script>alert(1)</script>"
        }) {
      assertThatCode(
              () -> {
                idx.search(q, 3);
                idx.best(q);
              })
          .as(String.valueOf(q).substring(0, Math.min(20, String.valueOf(q).length())))
          .doesNotThrowAnyException();
    }
    assertThat(idx.search(null, 3)).isEmpty();
    assertThat(idx.best("  ")).isEmpty();
    assertThat(idx.search("card", 0)).isEmpty();
  }

  @Test
  void concurrentMatchesAgree() throws Exception {
    SemanticFaqIndex idx = SemanticFixtures.banking77();
    List<String> qs =
        List.of(
            "my card still hasn't arrived",
            "how do I top up by bank transfer",
            "why was I charged a fee for cash withdrawal",
            "can I change my PIN at an ATM");
    List<String> expected = qs.stream().map(q -> idx.search(q, 1).get(0).faqId()).toList();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<String>> futures = new java.util.ArrayList<>();
      for (int i = 0; i < 40; i++) {
        String q = qs.get(i % qs.size());
        futures.add(pool.submit(() -> idx.search(q, 1).get(0).faqId()));
      }
      for (int i = 0; i < futures.size(); i++) {
        assertThat(futures.get(i).get()).isEqualTo(expected.get(i % qs.size()));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void storedIndexIsReusedAndRebuiltOnPackOrModelChange() {
    FaqPack pack = tinyPack("Where is my card?", "How do I reset my password?");
    FaqEmbeddingModel bge = FaqEmbeddingModel.BGE_SMALL_EN_V15_Q;
    FaqEmbeddingModel minilm = FaqEmbeddingModel.ALL_MINILM_L6_V2_Q;
    try (SemanticFaqIndex first = SemanticFaqIndex.open(pack, bge, tmp)) {
      assertThat(first.rebuilt()).isTrue();
      assertThat(first.modelId()).isEqualTo("bge-small-en-v1.5-q");
      assertThat(first.best("my card has not arrived yet")).map(FaqMatch::faqId).contains("card");
    }
    try (SemanticFaqIndex again = SemanticFaqIndex.open(pack, bge, tmp)) {
      assertThat(again.rebuilt()).isFalse();
      assertThat(again.search("forgot my password", 1).get(0).faqId()).isEqualTo("password");
    }
    FaqPack changed = tinyPack("Where is my card?", "How can I change my password?");
    try (SemanticFaqIndex rebuilt = SemanticFaqIndex.open(changed, bge, tmp)) {
      assertThat(rebuilt.rebuilt()).isTrue();
    }
    try (SemanticFaqIndex otherModel = SemanticFaqIndex.open(changed, minilm, tmp)) {
      assertThat(otherModel.rebuilt()).isTrue();
      assertThat(otherModel.modelId()).isEqualTo("all-minilm-l6-v2-q");
      assertThat(otherModel.search("forgot my password", 1).get(0).faqId()).isEqualTo("password");
    }
    try (SemanticFaqIndex back = SemanticFaqIndex.open(changed, minilm, tmp)) {
      assertThat(back.rebuilt()).isFalse();
    }
  }

  @Test
  void aKeywordIndexSharedByTheCallerIsUsedAndStaysOpen() {
    FaqPack pack = tinyPack("Where is my card?", "How do I reset my password?");
    try (KeywordFaqIndex keyword = KeywordFaqIndex.open(pack, tmp.resolve("keyword"))) {
      try (SemanticFaqIndex semantic = SemanticFaqIndex.open(pack, tmp, keyword)) {
        assertThat(semantic.keyword()).isSameAs(keyword);
        assertThat(semantic.best("my card has not arrived yet"))
            .map(FaqMatch::faqId)
            .contains("card");
      }
      assertThat(keyword.search("reset my password", 1).get(0).faqId()).isEqualTo("password");
    }
  }

  @Test
  void keywordIndexStillWorksAloneWithoutAnyModel() {
    try (KeywordFaqIndex kw =
        KeywordFaqIndex.build(tinyPack("Where is my card?", "How do I reset my password?"))) {
      assertThat(kw.level()).isEqualTo("keyword");
      assertThat(kw.search("reset password", 1).get(0).faqId()).isEqualTo("password");
    }
  }

  @Test
  void defaultModelsPerLanguageAreShipped() {
    assertThat(FaqEmbeddingModel.defaultFor("en")).isEqualTo(FaqEmbeddingModel.BGE_SMALL_EN_V15_Q);
    assertThat(FaqEmbeddingModel.defaultFor("zh")).isEqualTo(FaqEmbeddingModel.BGE_SMALL_ZH_V15_Q);
    assertThat(FaqEmbeddingModel.defaultFor("en").available()).isTrue();
    assertThat(FaqEmbeddingModel.defaultFor("zh").available()).isTrue();
    assertThat(FaqEmbeddingModel.fromId("BGE_SMALL_ZH_V15"))
        .isEqualTo(FaqEmbeddingModel.BGE_SMALL_ZH_V15);
  }

  @Test
  void chineseModelLoadsAndMatches() {
    FaqPack zh =
        new FaqPack(
            "zh-mini",
            "zh-mini",
            "zh",
            null,
            List.of(
                new FaqEntry(
                    "shipping",
                    "我的快递什么时候到？",
                    "通常三天内送达。",
                    List.of("包裹还没收到", "物流到哪了"),
                    List.of(),
                    null),
                new FaqEntry(
                    "refund",
                    "怎么申请退款？",
                    "在订单页点击退款。",
                    List.of("我要退货退款", "退款多久到账"),
                    List.of(),
                    null)),
            List.of());
    try (SemanticFaqIndex idx = SemanticFaqIndex.build(zh)) {
      assertThat(idx.modelId()).isEqualTo("bge-small-zh-v1.5-q");
      assertThat(idx.search("我的包裹怎么还没到", 1).get(0).faqId()).isEqualTo("shipping");
      assertThat(idx.search("我想把这个订单退款", 1).get(0).faqId()).isEqualTo("refund");
    }
  }

  private static FaqPack tinyPack(String cardQuestion, String passwordQuestion) {
    return new FaqPack(
        "tiny",
        "tiny",
        "en",
        null,
        List.of(
            new FaqEntry(
                "card",
                cardQuestion,
                "It arrives within 7 days.",
                List.of("my new card has not arrived", "when will my card come"),
                List.of("card"),
                null),
            new FaqEntry(
                "password",
                passwordQuestion,
                "Use 'forgot password'.",
                List.of("I forgot my password", "reset my login"),
                List.of("password"),
                null)),
        List.of());
  }
}
