package dev.questionflow.activities.retrieval;

import dev.questionflow.workflows.retrieval.FaqHit;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The last retrieval fallback (SPEC: "vector retrieval -> keyword retrieval -> a local cache of the
 * hottest entries"): an in-memory, bounded record of what the real matchers answered recently, used
 * only when both matchers failed. It needs no index, no model and no I/O, so it cannot hang.
 *
 * <ul>
 *   <li>recent questions: the last {@code maxQuestions} normalised question texts with their
 *       confident match (LRU); an exact repeat (very common: "where is my card") gets the same
 *       answer;
 *   <li>hot entries: the {@code maxEntries} most frequently matched FAQ entries, each with the
 *       words of its standard question and of (a bounded number of) questions that matched it; a
 *       new question matches a hot entry when most of its content words are among them (at least
 *       {@value #MIN_SHARED_WORDS} shared words and {@value #MIN_COVERAGE} of the question's
 *       words), else the cache abstains.
 * </ul>
 *
 * Thread-safe (synchronized: every operation is a few map look-ups over small bounded maps).
 */
public final class HotEntryCache {

  static final int MIN_SHARED_WORDS = 2;
  static final double MIN_COVERAGE = 0.6;
  private static final int MAX_WORDS_PER_ENTRY = 200;
  private static final Set<String> STOP_WORDS =
      Set.of(
          "the", "and", "you", "your", "have", "has", "had", "not", "for", "with", "what", "how",
          "can", "are", "was", "were", "this", "that", "still", "does", "did", "why", "when",
          "where", "will", "from", "there", "been", "into", "just", "about", "would", "could",
          "should", "please", "need", "want", "get", "got", "yet", "any", "our", "its");

  private record Recent(FaqHit best, List<FaqHit> hits) {}

  private static final class Hot {
    FaqHit hit;
    long count;
    final Set<String> words = new LinkedHashSet<>();
  }

  private final int maxQuestions;
  private final int maxEntries;
  private final LinkedHashMap<String, Recent> recent;
  private final Map<String, Hot> hot = new HashMap<>();

  public HotEntryCache(int maxQuestions, int maxEntries) {
    if (maxQuestions < 1 || maxEntries < 1) {
      throw new IllegalArgumentException("cache sizes must be positive");
    }
    this.maxQuestions = maxQuestions;
    this.maxEntries = maxEntries;
    this.recent =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Recent> eldest) {
            return size() > HotEntryCache.this.maxQuestions;
          }
        };
  }

  /** Remembers a confident answer of a real matcher (ignored when it abstained). */
  public synchronized void record(String question, RetrievalResult result) {
    if (result == null || !result.matched() || question == null) {
      return;
    }
    String key = normalise(question);
    if (key.isEmpty()) {
      return;
    }
    recent.put(key, new Recent(result.best(), List.copyOf(result.hits())));
    Hot entry = hot.get(result.best().faqId());
    if (entry == null) {
      if (hot.size() >= maxEntries) {
        evictColdest();
      }
      entry = new Hot();
      hot.put(result.best().faqId(), entry);
      entry.words.addAll(words(result.best().question()));
    }
    entry.hit = result.best();
    entry.count++;
    for (String word : words(question)) {
      if (entry.words.size() >= MAX_WORDS_PER_ENTRY) {
        break;
      }
      entry.words.add(word);
    }
  }

  private void evictColdest() {
    hot.entrySet().stream()
        .min(Comparator.comparingLong(e -> e.getValue().count))
        .map(Map.Entry::getKey)
        .ifPresent(hot::remove);
  }

  /**
   * A result with method {@link RetrievalResult#HOT_CACHE}, or empty when the cache has nothing
   * confident.
   */
  public synchronized Optional<RetrievalResult> lookup(String question, int topK) {
    String key = normalise(question == null ? "" : question);
    Recent exact = recent.get(key);
    if (exact != null) {
      return Optional.of(
          new RetrievalResult(
              exact.hits().stream().limit(Math.max(1, topK)).toList(),
              exact.best(),
              RetrievalResult.HOT_CACHE));
    }
    Set<String> asked = words(question);
    if (asked.size() < MIN_SHARED_WORDS) {
      return Optional.empty();
    }
    record Scored(Hot entry, double coverage, int shared) {}
    List<Scored> scored = new ArrayList<>();
    for (Hot entry : hot.values()) {
      int shared = 0;
      for (String word : asked) {
        if (entry.words.contains(word)) {
          shared++;
        }
      }
      if (shared > 0) {
        scored.add(new Scored(entry, (double) shared / asked.size(), shared));
      }
    }
    scored.sort(
        Comparator.comparingDouble(Scored::coverage)
            .reversed()
            .thenComparing(Comparator.comparingLong((Scored s) -> s.entry().count).reversed()));
    if (scored.isEmpty()) {
      return Optional.empty();
    }
    List<FaqHit> hits =
        scored.stream()
            .limit(Math.max(1, topK))
            .map(s -> withScore(s.entry().hit, s.coverage()))
            .toList();
    Scored top = scored.get(0);
    boolean confident = top.shared() >= MIN_SHARED_WORDS && top.coverage() >= MIN_COVERAGE;
    return confident
        ? Optional.of(new RetrievalResult(hits, hits.get(0), RetrievalResult.HOT_CACHE))
        : Optional.empty();
  }

  /**
   * Forgets everything: after the pack changed (a learned phrasing or entry, or a revert), an
   * earlier answer may no longer be the pack's answer, or name an entry that is gone.
   */
  public synchronized void clear() {
    recent.clear();
    hot.clear();
  }

  public synchronized int questionCount() {
    return recent.size();
  }

  public synchronized int entryCount() {
    return hot.size();
  }

  private static FaqHit withScore(FaqHit hit, double score) {
    return new FaqHit(hit.faqId(), hit.question(), hit.answer(), score);
  }

  /** Lower case, NFKC, punctuation to spaces, single spaces. */
  static String normalise(String text) {
    String n = Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
    return n.replaceAll("[^\\p{L}\\p{N}]+", " ").strip();
  }

  /**
   * Content words: Latin-like words of 3+ letters minus stop words; Han text as character bigrams.
   */
  static Set<String> words(String text) {
    Set<String> words = new HashSet<>();
    if (text == null) {
      return words;
    }
    for (String token : normalise(text).split(" ")) {
      if (token.isEmpty()) {
        continue;
      }
      if (token
          .codePoints()
          .anyMatch(cp -> Character.UnicodeScript.of(cp) == Character.UnicodeScript.HAN)) {
        int[] cps = token.codePoints().toArray();
        if (cps.length == 1) {
          words.add(token);
        }
        for (int i = 0; i + 1 < cps.length; i++) {
          words.add(new String(cps, i, 2));
        }
      } else if (token.length() >= 3 && !STOP_WORDS.contains(token)) {
        words.add(token);
      }
    }
    return words;
  }
}
