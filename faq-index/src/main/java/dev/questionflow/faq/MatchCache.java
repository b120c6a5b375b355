package dev.questionflow.faq;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import java.util.function.Supplier;

/**
 * The semantic level's recent answers: the ranking of each recent question ({@link
 * QuestionText#canonical} form), bounded by a number of questions (Caffeine's size eviction keeps
 * the frequent ones). A question is matched several times (intent detection, then retrieval's
 * ranking and best match), and customers repeat the common ones word for word. Keyed by the index's
 * revision as well, which every applied overlay moves: a learned phrasing or a revert takes effect
 * with the next question, and a match that was still running on the previous view is never served.
 */
public final class MatchCache {

  /** Rankings are kept this deep; a search for more entries is not cached. */
  static final int DEPTH = 10;

  /** Hits and misses since the start, evictions, questions kept now. */
  public record Stats(long hits, long misses, long evictions, long size) {
    public double hitRatio() {
      long requests = hits + misses;
      return requests == 0 ? Double.NaN : hits / (double) requests;
    }
  }

  private record Key(long revision, String question) {}

  private final Cache<Key, Fusion.Ranking> rankings;

  MatchCache(int questions) {
    this.rankings = Caffeine.newBuilder().maximumSize(questions).recordStats().build();
  }

  /**
   * The cached ranking, else {@code match}'s, kept. Computed outside the cache's locks: a match
   * takes milliseconds, and two threads asking for the same new question at once just both match.
   */
  Fusion.Ranking get(long revision, String question, Supplier<Fusion.Ranking> match) {
    Key key = new Key(revision, question);
    Fusion.Ranking ranking = rankings.getIfPresent(key);
    if (ranking == null) {
      ranking = match.get();
      rankings.put(key, ranking);
    }
    return ranking;
  }

  /** Drops what earlier revisions left (they can no longer be hit). */
  void clear() {
    rankings.invalidateAll();
  }

  public Stats stats() {
    rankings.cleanUp(); // evictions are otherwise done a moment later, on another thread
    CacheStats s = rankings.stats();
    return new Stats(s.hitCount(), s.missCount(), s.evictionCount(), rankings.estimatedSize());
  }
}
