package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.search.KnnFloatVectorQuery;

/**
 * The semantic level's ranking of a question over a {@link SemanticView}: the question embedded
 * once, its signals (classifier, kNN vote, BM25 of the keyword index) and their {@link Fusion};
 * with the {@link MatchCache} of recent questions' rankings in front when it is on.
 */
final class SemanticRanker {

  /** Input beyond this many characters is ignored (the encoders see at most 512 tokens anyway). */
  static final int MAX_QUERY_CHARS = 1000;

  /**
   * What the fusion is computed from: the classifier's probability per entry, the {@code k} nearest
   * phrasings, and the BM25 shares per entry (entries in the order of the view's {@code classIds}).
   * {@link Calibrator} keeps them to try many fusions of one search.
   */
  record Signals(
      double[] classifier, Fusion.Nearest nearest, double[] keyword, double keywordTop) {}

  private final Embedder embedder;
  private final KeywordFaqIndex keyword;
  private final SemanticSettings settings;

  /** Recent questions' rankings, or null: every question is matched. */
  private volatile MatchCache matchCache;

  SemanticRanker(Embedder embedder, KeywordFaqIndex keyword, SemanticSettings settings) {
    this.embedder = embedder;
    this.keyword = keyword;
    this.settings = settings;
  }

  /** The {@code topK} best entries with the figures {@link SemanticSettings#answers} reads. */
  Fusion.Ranking rank(SemanticView v, String text, int topK) {
    if (text == null || topK <= 0 || text.isBlank()) {
      return Fusion.Ranking.EMPTY;
    }
    String t = QuestionText.canonical(text, embedder.lowerCases());
    if (t.length() > MAX_QUERY_CHARS) {
      t = t.substring(0, MAX_QUERY_CHARS);
    }
    MatchCache cache = matchCache;
    if (cache == null || topK > MatchCache.DEPTH) {
      return rankUncached(v, t, topK);
    }
    String question = t;
    Fusion.Ranking r =
        cache.get(v.revision(), question, () -> rankUncached(v, question, MatchCache.DEPTH));
    // the fusion sorts every entry before it cuts the list, so a shorter ranking is a prefix
    return r.candidates().size() <= topK
        ? r
        : new Fusion.Ranking(
            r.candidates().subList(0, topK),
            r.maxSimilarity(),
            r.keywordTop(),
            r.outOfScopeSimilarity());
  }

  private Fusion.Ranking rankUncached(SemanticView v, String question, int topK) {
    float[] q = embedder.embed(question);
    List<FaqMatch> keywordHits = keyword.search(question, 10);
    Signals signals = signals(v, q, keywordHits, settings.knnK(), settings.wClassifier() > 0);
    int n = v.classIds().length;
    double[] pKnn = Fusion.knnVote(signals.nearest(), settings.knnK(), n, settings.knnTemp());
    return new Fusion.Ranking(
        Fusion.fuse(v.classIds(), signals.classifier(), pKnn, signals.keyword(), settings, topK),
        signals.nearest().maxSimilarity(),
        signals.keywordTop(),
        signals.nearest().outOfScope());
  }

  /**
   * @param withClassifier false: the classifier's probabilities are left at 0 (its weight is 0)
   */
  static Signals signals(
      SemanticView v, float[] q, List<FaqMatch> keywordHits, int k, boolean withClassifier) {
    int n = v.classIds().length;
    Fusion.Nearest nearest;
    try {
      nearest =
          Fusion.Nearest.of(
              v.searcher()
                  .search(new KnnFloatVectorQuery(SemanticIndexWriter.F_VECTOR, q, k), k)
                  .scoreDocs,
              v.docClass());
    } catch (IOException e) {
      throw new UncheckedIOException("Semantic FAQ search failed", e);
    }
    // the classifier knows the pack's entries only: a new entry's probability is 0
    return new Signals(
        withClassifier ? Arrays.copyOf(v.classifier().predict(q), n) : new double[n],
        nearest,
        Fusion.keywordShares(keywordHits, v.classIndex(), n),
        keywordHits.stream().mapToDouble(FaqMatch::score).max().orElse(0));
  }

  /** Keeps the rankings of up to {@code questions} recent questions; 0 or less: none. */
  void cacheRankings(int questions) {
    matchCache = questions <= 0 ? null : new MatchCache(questions);
  }

  Optional<MatchCache.Stats> cacheStats() {
    MatchCache cache = matchCache;
    return cache == null ? Optional.empty() : Optional.of(cache.stats());
  }

  /** Forgets the rankings of earlier revisions (an overlay was applied). */
  void clearCache() {
    MatchCache cache = matchCache;
    if (cache != null) {
      cache.clear();
    }
  }
}
