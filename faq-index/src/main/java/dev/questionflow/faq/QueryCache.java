package dev.questionflow.faq;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@link Embedder} that keeps the embeddings of the last {@code entries} distinct texts it was
 * asked for (least recently used out first), in front of the model. For questions, which are
 * matched several times in a row; the index's phrasings go straight to the model ({@link
 * #embedAll}).
 */
final class QueryCache implements Embedder {

  private final Embedder model;
  private final Map<String, float[]> recent;

  QueryCache(Embedder model, int entries) {
    this.model = model;
    // the JDK's access-ordered LinkedHashMap as an LRU: small and local, no cache library needed
    // here
    this.recent =
        Collections.synchronizedMap(
            new LinkedHashMap<>(entries * 2, 0.75f, true) {
              @Override
              protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
                return size() > entries;
              }
            });
  }

  @Override
  public String modelId() {
    return model.modelId();
  }

  @Override
  public float[] embed(String text) {
    float[] cached = recent.get(text);
    if (cached == null) {
      cached = model.embed(text);
      recent.put(text, cached);
    }
    return cached;
  }

  @Override
  public List<float[]> embedAll(List<String> texts) {
    return model.embedAll(texts);
  }

  /** The model belongs to whoever made it (the index closes it). */
  @Override
  public void close() {}
}
