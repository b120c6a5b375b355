package dev.questionflow.activities.retrieval;

import dev.questionflow.faq.FaqMatch;
import dev.questionflow.faq.KeywordFaqIndex;
import dev.questionflow.workflows.retrieval.FaqHit;
import dev.questionflow.workflows.retrieval.RetrievalActivities;
import dev.questionflow.workflows.retrieval.RetrievalRequest;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import java.util.List;

/** Retrieval over the FAQ pack with Lucene BM25; abstains (best = null) when no entry matches confidently. */
public class Bm25RetrievalActivities implements RetrievalActivities {

  private final KeywordFaqIndex index;

  public Bm25RetrievalActivities(KeywordFaqIndex index) {
    this.index = index;
  }

  @Override
  public RetrievalResult retrieveFaq(RetrievalRequest request) {
    List<FaqHit> hits = index.search(request.text(), request.topK()).stream().map(Bm25RetrievalActivities::hit).toList();
    FaqHit best = index.best(request.text()).map(Bm25RetrievalActivities::hit).orElse(null);
    return new RetrievalResult(hits, best, "bm25");
  }

  private static FaqHit hit(FaqMatch match) {
    return new FaqHit(match.faqId(), match.entry().question(), match.entry().answer(), match.score());
  }
}
