package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The semantic level's match cache ({@link MatchCache}): a repeat after normalisation is served
 * from it with what an uncached match gives, a learned phrasing or a revert takes effect with the
 * next question, and it stays within its bound.
 */
class MatchCacheTest {

  private static final String QUESTION = "I still have not received my new card";

  /** Out of scope for a bank: abstained on until it is learned. */
  private static final String SWALLOW = FaqOverlayTest.SWALLOW;

  private static CachingEmbedder embedder;
  private static SemanticFaqIndex index;

  @BeforeAll
  static void build() {
    // a small index of its own: the shared BANKING77 fixture must not get a cache under other tests
    FaqPack twelve = LearningCurve.startingPack(FaqPacks.loadFromClasspath("banking77"), 20);
    twelve =
        new FaqPack(
            twelve.id(),
            twelve.name(),
            twelve.language(),
            twelve.attribution(),
            twelve.entries().subList(0, 12),
            List.of());
    embedder = CachingEmbedder.of(SemanticFixtures.MODEL);
    index =
        SemanticFaqIndex.build(
            twelve, embedder, SemanticSettings.defaults(SemanticFixtures.MODEL.id()), false);
  }

  @AfterAll
  static void close() {
    index.close();
    embedder.save();
  }

  @Test
  void aRepeatWithOtherSpacingAndCaseIsServedFromTheCacheWithTheUncachedAnswer() {
    index.withMatchCache(0);
    FaqMatch uncached = index.best(QUESTION).orElseThrow();
    List<FaqMatch> uncachedTop3 = index.search(QUESTION, 3);

    index.withMatchCache(100);
    assertThat(index.best(QUESTION)).contains(uncached);
    assertThat(index.best("  i STILL have not\treceived   my new card ")).contains(uncached);
    assertThat(index.search("I still have not received my new card", 3)).isEqualTo(uncachedTop3);

    MatchCache.Stats stats = index.matchCacheStats().orElseThrow();
    assertThat(stats.misses()).isEqualTo(1);
    assertThat(stats.hits()).isEqualTo(2);
    assertThat(stats.hitRatio()).isEqualTo(2 / 3.0);
  }

  @Test
  void aLearnedPhrasingAndItsRevertTakeEffectWithTheNextQuestion() {
    index.withMatchCache(100);
    String target = index.pack().entries().get(3).id();
    try {
      assertThat(index.best(SWALLOW)).isEmpty();
      assertThat(index.best(SWALLOW)).isEmpty(); // now cached

      index.apply(new FaqOverlay(List.of(), List.of(new FaqOverlay.Phrasing(target, SWALLOW))));
      assertThat(index.best(SWALLOW)).get().extracting(FaqMatch::faqId).isEqualTo(target);

      index.apply(FaqOverlay.EMPTY);
      assertThat(index.best(SWALLOW)).isEmpty();
      MatchCache.Stats stats = index.matchCacheStats().orElseThrow();
      assertThat(stats.misses()).as("one per revision").isEqualTo(3);
      assertThat(stats.hits()).isEqualTo(1);
    } finally {
      index.apply(FaqOverlay.EMPTY);
    }
  }

  @Test
  void theCacheKeepsAtMostItsNumberOfQuestions() {
    index.withMatchCache(3);
    for (String q :
        List.of(
            "where is my card",
            "how do I top up",
            "my card payment was declined",
            "can I get a refund",
            "what is the exchange rate",
            "I lost my card")) {
      index.best(q);
    }
    MatchCache.Stats stats = index.matchCacheStats().orElseThrow();
    assertThat(stats.size()).isLessThanOrEqualTo(3);
    assertThat(stats.evictions()).isGreaterThanOrEqualTo(3);
    index.withMatchCache(0);
    assertThat(index.matchCacheStats()).isEmpty();
  }
}
