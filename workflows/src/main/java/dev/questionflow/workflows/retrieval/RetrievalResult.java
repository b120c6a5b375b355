package dev.questionflow.workflows.retrieval;

import java.util.List;

/**
 * @param hits ranked candidates, best first (may be weak)
 * @param best the confident match, or null when the matcher abstains
 * @param method which matcher found them: {@link #SEMANTIC} (L3, embedding model), {@link #KEYWORD}
 *     (L4, no model) or {@link #HOT_CACHE} (both failed; answered from the in-memory cache of
 *     recently and frequently matched entries)
 */
public record RetrievalResult(List<FaqHit> hits, FaqHit best, String method) {

  public static final String SEMANTIC = "semantic";
  public static final String KEYWORD = "keyword";

  /**
   * The last retrieval fallback: no index at all, only entries matched recently (no model either).
   */
  public static final String HOT_CACHE = "hot_cache";

  public static RetrievalResult none(String method) {
    return new RetrievalResult(List.of(), null, method);
  }

  public boolean matched() {
    return best != null;
  }
}
