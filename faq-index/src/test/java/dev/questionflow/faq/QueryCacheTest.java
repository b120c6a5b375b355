package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class QueryCacheTest {

  private final AtomicInteger embedded = new AtomicInteger();
  private final Embedder model =
      new Embedder() {
        @Override
        public String modelId() {
          return "counting";
        }

        @Override
        public float[] embed(String text) {
          embedded.incrementAndGet();
          return new float[] {text.length()};
        }

        @Override
        public List<float[]> embedAll(List<String> texts) {
          return texts.stream().map(this::embed).toList();
        }
      };

  @Test
  void aQuestionAskedAgainIsEmbeddedOnceAndTheLeastRecentlyUsedGoesFirst() {
    QueryCache cache = new QueryCache(model, 2);
    cache.embed("a");
    cache.embed("a");
    cache.embed("bb");
    assertThat(embedded).hasValue(2);
    cache.embed("a"); // a is now the most recent
    cache.embed("ccc"); // evicts bb
    cache.embed("a");
    assertThat(embedded).hasValue(3);
    cache.embed("bb");
    assertThat(embedded).as("bb was evicted").hasValue(4);
    assertThat(cache.modelId()).isEqualTo("counting");
  }

  @Test
  void phrasingsOfTheIndexGoStraightToTheModel() {
    QueryCache cache = new QueryCache(model, 10);
    cache.embedAll(List.of("a", "a"));
    cache.embed("a");
    assertThat(embedded).hasValue(3);
  }
}
