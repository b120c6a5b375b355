package dev.questionflow.workflows.retrieval;

import java.util.List;

/**
 * @param hits ranked candidates, best first (may be weak)
 * @param best the confident match, or null when the matcher abstains
 * @param method how the hits were found, e.g. "bm25"
 */
public record RetrievalResult(List<FaqHit> hits, FaqHit best, String method) {

  public static RetrievalResult none(String method) {
    return new RetrievalResult(List.of(), null, method);
  }

  public boolean matched() {
    return best != null;
  }
}
