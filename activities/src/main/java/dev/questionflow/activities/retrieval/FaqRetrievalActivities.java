package dev.questionflow.activities.retrieval;

import dev.questionflow.faq.FaqMatch;
import dev.questionflow.faq.FaqMatcher;
import dev.questionflow.workflows.retrieval.FaqHit;
import dev.questionflow.workflows.retrieval.RetrievalActivities;
import dev.questionflow.workflows.retrieval.RetrievalRequest;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retrieval over the FAQ pack: the semantic matcher (L3, embedding model + Lucene) when it is available, else the
 * keyword matcher (L4, Lucene BM25, no model), which also takes over when the semantic one fails. Abstains
 * (best = null) when no entry matches confidently.
 */
public class FaqRetrievalActivities implements RetrievalActivities {

  private static final Logger log = LoggerFactory.getLogger(FaqRetrievalActivities.class);

  private final FaqMatcher semantic;
  private final FaqMatcher keyword;

  /** @param semantic null when the embedding model is disabled or could not load */
  public FaqRetrievalActivities(FaqMatcher semantic, FaqMatcher keyword) {
    this.semantic = semantic;
    this.keyword = keyword;
  }

  @Override
  public RetrievalResult retrieveFaq(RetrievalRequest request) {
    if (semantic != null) {
      try {
        return retrieve(semantic, request);
      } catch (RuntimeException e) {
        log.warn("semantic matcher failed, answering from the keyword matcher: {}", e.toString());
      }
    }
    return retrieve(keyword, request);
  }

  private static RetrievalResult retrieve(FaqMatcher matcher, RetrievalRequest request) {
    List<FaqHit> hits = matcher.search(request.text(), request.topK()).stream().map(FaqRetrievalActivities::hit).toList();
    FaqHit best = matcher.best(request.text()).map(FaqRetrievalActivities::hit).orElse(null);
    return new RetrievalResult(hits, best, matcher.level());
  }

  private static FaqHit hit(FaqMatch match) {
    return new FaqHit(match.faqId(), match.entry().question(), match.entry().answer(), match.score());
  }
}
