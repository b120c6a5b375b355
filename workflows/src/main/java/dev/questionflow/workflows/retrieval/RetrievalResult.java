package dev.questionflow.workflows.retrieval;

import java.util.List;

/**
 * @param hits ranked candidates, best first (may be weak)
 * @param best the confident match, or null when the matcher abstains
 * @param method which matcher found them: {@link #SEMANTIC} (L3, embedding model) or {@link #KEYWORD} (L4, no model)
 */
public record RetrievalResult(List<FaqHit> hits, FaqHit best, String method) {

  public static final String SEMANTIC = "semantic";
  public static final String KEYWORD = "keyword";

  public static RetrievalResult none(String method) {
    return new RetrievalResult(List.of(), null, method);
  }

  public boolean matched() {
    return best != null;
  }
}
