package dev.questionflow.activities.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.workflows.retrieval.FaqHit;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class HotEntryCacheTest {

  private static RetrievalResult matched(String faqId, String question) {
    FaqHit hit = new FaqHit(faqId, question, "answer of " + faqId, 0.9);
    return new RetrievalResult(List.of(hit), hit, RetrievalResult.KEYWORD);
  }

  @Test
  void exactRepeatsAndParaphrasesOfHotEntriesAreFound() {
    HotEntryCache cache = new HotEntryCache(10, 10);
    cache.record("Where is my new card?", matched("card_arrival", "When will my card arrive?"));

    assertThat(cache.lookup("where is my NEW card", 3))
        .get()
        .satisfies(
            r -> {
              assertThat(r.method()).isEqualTo(RetrievalResult.HOT_CACHE);
              assertThat(r.best().faqId()).isEqualTo("card_arrival");
            });
    assertThat(cache.lookup("when does the card arrive", 3))
        .get()
        .extracting(r -> r.best().faqId())
        .isEqualTo("card_arrival");
    assertThat(cache.lookup("how do I reset my password", 3)).isEmpty();
  }

  @Test
  void abstentionsAreNotRemembered() {
    HotEntryCache cache = new HotEntryCache(10, 10);
    cache.record("what is the meaning of life", RetrievalResult.none(RetrievalResult.KEYWORD));

    assertThat(cache.questionCount()).isZero();
    assertThat(cache.lookup("what is the meaning of life", 3)).isEmpty();
  }

  @Test
  void isBoundedAndKeepsTheMostFrequentEntries() {
    HotEntryCache cache = new HotEntryCache(3, 2);
    for (int i = 0; i < 5; i++) {
      cache.record("where is my card " + i, matched("card_arrival", "When will my card arrive?"));
    }
    cache.record("exchange rate euros", matched("exchange_rate", "What exchange rate do you use?"));
    cache.record("top up failed", matched("top_up_failed", "Why did my top up fail?"));

    assertThat(cache.questionCount()).isEqualTo(3);
    assertThat(cache.entryCount()).isEqualTo(2);
    assertThat(cache.lookup("when will my card arrive", 3))
        .get()
        .extracting(r -> r.best().faqId())
        .isEqualTo("card_arrival");
    assertThat(cache.lookup("exchange rate for euros", 3))
        .as("the colder entry was evicted")
        .isEmpty();
  }

  @Test
  void clearForgetsEverythingAfterThePackChanged() {
    HotEntryCache cache = new HotEntryCache(10, 10);
    cache.record("where is my card", matched("card_arrival", "When will my card arrive?"));
    assertThat(cache.lookup("where is my card", 3)).isPresent();
    cache.clear();
    assertThat(cache.lookup("where is my card", 3)).isEmpty();
    assertThat(cache.lookup("when will my card arrive", 3)).isEmpty();
    assertThat(cache.questionCount()).isZero();
    assertThat(cache.entryCount()).isZero();
  }

  @Test
  void chineseTextUsesCharacterBigrams() {
    HotEntryCache cache = new HotEntryCache(10, 10);
    cache.record("我的新卡还没收到", matched("card_arrival", "我的卡什么时候到？"));

    assertThat(cache.lookup("新卡还没收到呢", 3))
        .get()
        .extracting(r -> r.best().faqId())
        .isEqualTo("card_arrival");
  }
}
