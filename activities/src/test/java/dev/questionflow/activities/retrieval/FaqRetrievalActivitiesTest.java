package dev.questionflow.activities.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.intent.RuleIntentActivities;
import dev.questionflow.activities.resilience.BreakerSettings;
import dev.questionflow.activities.resilience.Dependency;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.activities.resilience.UpstreamErrors.Kind;
import dev.questionflow.activities.template.FaqTemplateActivities;
import dev.questionflow.faq.FaqMatch;
import dev.questionflow.faq.FaqMatcher;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.FaqPacks;
import dev.questionflow.faq.KeywordFaqIndex;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.retrieval.RetrievalRequest;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import dev.questionflow.workflows.template.TemplateRequest;
import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Retrieval, intent rules and the FAQ template over the real BANKING77 pack and a real Lucene
 * index.
 */
class FaqRetrievalActivitiesTest {

  private static FaqPack pack;
  private static KeywordFaqIndex index;

  @BeforeAll
  static void build() {
    pack = FaqPacks.loadFromClasspath("banking77");
    index = KeywordFaqIndex.build(pack);
  }

  @AfterAll
  static void close() {
    index.close();
  }

  @Test
  void findsTheCardArrivalEntry() {
    RetrievalResult result =
        new FaqRetrievalActivities(null, index)
            .retrieveFaq(new RetrievalRequest("I still have not received my new card", 3));

    assertThat(result.matched()).isTrue();
    assertThat(result.method()).isEqualTo("keyword");
    assertThat(result.best().faqId()).isEqualTo("card_arrival");
    assertThat(result.best().answer()).isEqualTo(pack.entry("card_arrival").orElseThrow().answer());
    assertThat(result.hits())
        .hasSizeLessThanOrEqualTo(3)
        .first()
        .extracting(h -> h.faqId())
        .isEqualTo("card_arrival");
  }

  @Test
  void abstainsOnAQuestionOutsideThePackButStillListsCandidates() {
    RetrievalResult result =
        new FaqRetrievalActivities(null, index)
            .retrieveFaq(
                new RetrievalRequest("What is the airspeed velocity of an unladen swallow?", 3));

    assertThat(result.matched()).isFalse();
  }

  @Test
  void aFailingSemanticMatcherHandsOverToTheKeywordMatcher() {
    FaqMatcher broken =
        new FaqMatcher() {
          @Override
          public java.util.List<FaqMatch> search(String text, int topK) {
            throw new IllegalStateException("embedding model unavailable");
          }

          @Override
          public java.util.Optional<FaqMatch> best(String text) {
            throw new IllegalStateException("embedding model unavailable");
          }

          @Override
          public String level() {
            return "semantic";
          }
        };

    RetrievalResult result =
        new FaqRetrievalActivities(broken, index)
            .retrieveFaq(new RetrievalRequest("I still have not received my new card", 3));

    assertThat(result.method()).isEqualTo("keyword");
    assertThat(result.best().faqId()).isEqualTo("card_arrival");
  }

  @Test
  void rendersTheStandardAnswerWithANotice() {
    Answer answer =
        new FaqTemplateActivities(pack)
            .renderFaqAnswer(
                new TemplateRequest(
                    "card_arrival", "web", "model not configured", AnswerLevel.FAQ));

    assertThat(answer.level()).isEqualTo(AnswerLevel.FAQ);
    assertThat(answer.text()).isEqualTo(pack.entry("card_arrival").orElseThrow().answer().strip());
    assertThat(answer.notice()).isEqualTo(FaqTemplateActivities.NOTICE);
  }

  @Test
  void intentRulesOrTheDefault() {
    RuleIntentActivities intents = new RuleIntentActivities(pack, index);

    assertThat(intents.classifyIntent("This is unacceptable, I want to complain").intent())
        .isEqualTo("complaint");
    assertThat(intents.classifyIntent("I still have not received my new card").intent())
        .isEqualTo("card_arrival");
    assertThat(intents.classifyIntent("I still have not received my new card").source())
        .isEqualTo("keyword");
    assertThat(
            intents.classifyIntent("What is the airspeed velocity of an unladen swallow?").intent())
        .isEqualTo("general_question");
  }

  // --- the fallback chain: semantic -> keyword -> hot cache
  // ----------------------------------------------------------

  /** A matcher that can be switched to failing, hanging or working, and counts its calls. */
  private static final class Switchable implements FaqMatcher {
    final FaqMatcher delegate;
    final String level;
    final AtomicBoolean broken = new AtomicBoolean();
    final AtomicBoolean hanging = new AtomicBoolean();
    final AtomicInteger calls = new AtomicInteger();
    final CountDownLatch release = new CountDownLatch(1);

    Switchable(FaqMatcher delegate, String level) {
      this.delegate = delegate;
      this.level = level;
    }

    private void maybeFail() {
      calls.incrementAndGet();
      if (broken.get()) {
        throw new IllegalStateException(level + " matcher unavailable");
      }
      if (hanging.get()) {
        try {
          release.await(30, TimeUnit.SECONDS); // interrupted by the timeout's cancel
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted");
        }
      }
    }

    @Override
    public List<FaqMatch> search(String text, int topK) {
      maybeFail();
      return delegate.search(text, topK);
    }

    @Override
    public Optional<FaqMatch> best(String text) {
      maybeFail();
      return delegate.best(text);
    }

    @Override
    public String level() {
      return level;
    }
  }

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final DependencyBreakers breakers =
      new DependencyBreakers(BreakerSettings.SPEC.withMinimumCalls(4), Map.of(), meters);
  private final UpstreamErrors errors = new UpstreamErrors(meters);

  private FaqRetrievalActivities chain(
      Switchable semantic, Switchable keyword, HotEntryCache cache) {
    // generous limits where nothing should time out; the hanging test uses its own short ones
    return new FaqRetrievalActivities(
        semantic,
        keyword,
        new FaqRetrievalActivities.Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(10)),
        cache,
        breakers,
        errors);
  }

  @Test
  void aHangingSemanticMatcherTimesOutAndTheKeywordMatcherAnswers() {
    Switchable semantic = new Switchable(index, "semantic");
    semantic.hanging.set(true);
    try (FaqRetrievalActivities retrieval =
        new FaqRetrievalActivities(
            semantic,
            new Switchable(index, "keyword"),
            new FaqRetrievalActivities.Timeouts(Duration.ofMillis(200), Duration.ofSeconds(10)),
            new HotEntryCache(10, 10),
            breakers,
            errors)) {

      RetrievalResult result =
          retrieval.retrieveFaq(new RetrievalRequest("I still have not received my new card", 3));

      assertThat(result.method()).isEqualTo(RetrievalResult.KEYWORD);
      assertThat(result.best().faqId()).isEqualTo("card_arrival");
      assertThat(errors.count(Dependency.EMBEDDING, Kind.TIMEOUT)).isEqualTo(1);
      assertThat(breakers.breaker(Dependency.EMBEDDING).getMetrics().getNumberOfFailedCalls())
          .isEqualTo(1);
    } finally {
      semantic.release.countDown();
    }
  }

  @Test
  void anOpenEmbeddingBreakerSkipsTheSemanticMatcherWithoutCallingIt() {
    Switchable semantic = new Switchable(index, "semantic");
    semantic.broken.set(true);
    Switchable keyword = new Switchable(index, "keyword");
    try (FaqRetrievalActivities retrieval = chain(semantic, keyword, new HotEntryCache(10, 10))) {
      for (int i = 0; i < 4; i++) {
        assertThat(
                retrieval
                    .retrieveFaq(new RetrievalRequest("I still have not received my new card", 3))
                    .method())
            .isEqualTo(RetrievalResult.KEYWORD);
      }
      assertThat(breakers.state(Dependency.EMBEDDING)).isEqualTo(State.OPEN);
      int semanticCalls = semantic.calls.get();

      RetrievalResult result =
          retrieval.retrieveFaq(new RetrievalRequest("I still have not received my new card", 3));

      assertThat(result.method()).isEqualTo(RetrievalResult.KEYWORD);
      assertThat(semantic.calls.get())
          .as("no call through an open breaker")
          .isEqualTo(semanticCalls);
      assertThat(errors.count(Dependency.EMBEDDING, Kind.CIRCUIT_OPEN)).isEqualTo(1);
    }
  }

  @Test
  void whenTheKeywordMatcherFailsTooTheHotCacheAnswers() {
    Switchable semantic = new Switchable(index, "semantic");
    semantic.broken.set(true);
    Switchable keyword = new Switchable(index, "keyword");
    HotEntryCache cache = new HotEntryCache(100, 10);
    try (FaqRetrievalActivities retrieval = chain(semantic, keyword, cache)) {
      // warm: the keyword matcher answers and the cache remembers
      assertThat(
              retrieval
                  .retrieveFaq(new RetrievalRequest("I still have not received my new card", 3))
                  .best()
                  .faqId())
          .isEqualTo("card_arrival");
      keyword.broken.set(true);

      RetrievalResult repeated =
          retrieval.retrieveFaq(new RetrievalRequest("I still have NOT received my new card!", 3));
      RetrievalResult paraphrased =
          retrieval.retrieveFaq(new RetrievalRequest("my new card has not been received", 3));

      assertThat(repeated.method()).isEqualTo(RetrievalResult.HOT_CACHE);
      assertThat(repeated.best().faqId()).isEqualTo("card_arrival");
      assertThat(paraphrased.method()).isEqualTo(RetrievalResult.HOT_CACHE);
      assertThat(paraphrased.best().faqId()).isEqualTo("card_arrival");
      assertThat(paraphrased.best().answer())
          .isEqualTo(pack.entry("card_arrival").orElseThrow().answer());

      assertThatThrownBy(
              () -> retrieval.retrieveFaq(new RetrievalRequest("How do I change my PIN?", 3)))
          .as(
              "nothing in the cache: a retryable failure, the workflow continues without knowledge after retries")
          .isInstanceOfSatisfying(
              ApplicationFailure.class,
              f -> {
                assertThat(f.getType()).isEqualTo(FaqRetrievalActivities.UNAVAILABLE);
                assertThat(f.isNonRetryable()).isFalse();
              });
    }
  }

  @Test
  void aHangingKeywordMatcherIsCutOffByItsOwnTimeout() {
    Switchable keyword = new Switchable(index, "keyword");
    HotEntryCache cache = new HotEntryCache(100, 10);
    try (FaqRetrievalActivities retrieval =
        new FaqRetrievalActivities(
            null,
            keyword,
            new FaqRetrievalActivities.Timeouts(Duration.ofSeconds(10), Duration.ofMillis(200)),
            cache,
            breakers,
            errors)) {
      keyword.hanging.set(false);
      // warm the cache through a (possibly slow, first-query) keyword answer with a generous limit
      new FaqRetrievalActivities(
              null,
              keyword,
              new FaqRetrievalActivities.Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(10)),
              cache,
              breakers,
              errors)
          .retrieveFaq(new RetrievalRequest("I still have not received my new card", 3));
      keyword.hanging.set(true);

      RetrievalResult result =
          retrieval.retrieveFaq(new RetrievalRequest("I still have not received my new card", 3));

      assertThat(result.method()).isEqualTo(RetrievalResult.HOT_CACHE);
      assertThat(result.best().faqId()).isEqualTo("card_arrival");
    } finally {
      keyword.release.countDown();
    }
  }
}
