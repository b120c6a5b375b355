package dev.questionflow.activities.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.intent.RuleIntentActivities;
import dev.questionflow.activities.template.FaqTemplateActivities;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.FaqMatch;
import dev.questionflow.faq.FaqMatcher;
import dev.questionflow.faq.FaqPacks;
import dev.questionflow.faq.KeywordFaqIndex;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.retrieval.RetrievalRequest;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import dev.questionflow.workflows.template.TemplateRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Retrieval, intent rules and the FAQ template over the real BANKING77 pack and a real Lucene index. */
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
        new FaqRetrievalActivities(null, index).retrieveFaq(new RetrievalRequest("I still have not received my new card", 3));

    assertThat(result.matched()).isTrue();
    assertThat(result.method()).isEqualTo("keyword");
    assertThat(result.best().faqId()).isEqualTo("card_arrival");
    assertThat(result.best().answer()).isEqualTo(pack.entry("card_arrival").orElseThrow().answer());
    assertThat(result.hits()).hasSizeLessThanOrEqualTo(3).first().extracting(h -> h.faqId()).isEqualTo("card_arrival");
  }

  @Test
  void abstainsOnAQuestionOutsideThePackButStillListsCandidates() {
    RetrievalResult result = new FaqRetrievalActivities(null, index)
        .retrieveFaq(new RetrievalRequest("What is the airspeed velocity of an unladen swallow?", 3));

    assertThat(result.matched()).isFalse();
  }

  @Test
  void aFailingSemanticMatcherHandsOverToTheKeywordMatcher() {
    FaqMatcher broken = new FaqMatcher() {
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
        new FaqRetrievalActivities(broken, index).retrieveFaq(new RetrievalRequest("I still have not received my new card", 3));

    assertThat(result.method()).isEqualTo("keyword");
    assertThat(result.best().faqId()).isEqualTo("card_arrival");
  }

  @Test
  void rendersTheStandardAnswerWithANotice() {
    Answer answer =
        new FaqTemplateActivities(pack).renderFaqAnswer(new TemplateRequest("card_arrival", "web", "model not configured", AnswerLevel.FAQ));

    assertThat(answer.level()).isEqualTo(AnswerLevel.FAQ);
    assertThat(answer.text()).isEqualTo(pack.entry("card_arrival").orElseThrow().answer().strip());
    assertThat(answer.notice()).isEqualTo(FaqTemplateActivities.NOTICE);
  }

  @Test
  void intentRulesOrTheDefault() {
    RuleIntentActivities intents = new RuleIntentActivities(pack, index);

    assertThat(intents.classifyIntent("This is unacceptable, I want to complain").intent()).isEqualTo("complaint");
    assertThat(intents.classifyIntent("I still have not received my new card").intent()).isEqualTo("card_arrival");
    assertThat(intents.classifyIntent("I still have not received my new card").source()).isEqualTo("keyword");
    assertThat(intents.classifyIntent("What is the airspeed velocity of an unladen swallow?").intent())
        .isEqualTo("general_question");
  }
}
