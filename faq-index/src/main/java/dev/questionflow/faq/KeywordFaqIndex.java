package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * L4-style keyword matcher over a {@link FaqPack}: Lucene BM25 over the standard question, every
 * phrasing and the keywords of each entry (one Lucene document each, with the FAQ id stored).
 *
 * <p>Ranking: the hits of a query (top {@value KeywordSettings#DEFAULT_HITS_TO_COLLECT} documents)
 * are aggregated per FAQ id as the sum of the entry's best {@value
 * KeywordSettings#DEFAULT_HITS_PER_FAQ} hit scores, normalised by the highest score the query's own
 * terms could reach ({@value KeywordSettings#DEFAULT_HITS_PER_FAQ} x the sum of their IDFs), and
 * multiplied by the entry's <em>coverage</em>: the IDF-weighted share of the query terms that occur
 * anywhere in the entry (question, phrasings, keywords). That product is {@link FaqMatch#score()},
 * in [0, 1]; words the pack has never seen lower it.
 *
 * <p>{@link #best(String)} abstains when there is no hit, the score is below {@value
 * KeywordSettings#DEFAULT_MIN_SCORE}, the coverage is below {@value
 * KeywordSettings#DEFAULT_MIN_COVERAGE}, or the query carries too little information (sum of term
 * IDFs below {@value KeywordSettings#DEFAULT_MIN_QUERY_IDF}, e.g. the single word "card"). See
 * {@code faq-index/README.md} for how these defaults were measured.
 *
 * <p>Query text is turned into analyzer tokens and a {@link BooleanQuery} of {@link TermQuery}
 * SHOULD clauses (at most {@value KeywordRanker#MAX_QUERY_TERMS} distinct terms), so no user input
 * can cause a parse error; blank or stop-word-only text gives no results. Searches are thread-safe
 * (one {@link IndexSearcher}, reused).
 *
 * <p>Split along its jobs: {@link KeywordIndexWriter} (the stored index: documents, fingerprint),
 * {@link KeywordView} (what a search reads, with the learned overlay) and {@link KeywordRanker}
 * (the ranking); this class opens them, swaps views and decides when to abstain.
 */
public final class KeywordFaqIndex implements FaqMatcher, AutoCloseable {

  private final FaqPack pack;
  private final KeywordSettings settings;
  private final Analyzer analyzer;
  private final Directory directory;
  private final DirectoryReader reader;
  private final boolean rebuilt;
  private final KeywordRanker ranker;

  /** The pack's index with no overlay, and the index searched now (with the overlay, if any). */
  private final KeywordView base;

  private volatile KeywordView view;

  private KeywordFaqIndex(
      FaqPack pack,
      KeywordSettings settings,
      Analyzer analyzer,
      Directory directory,
      boolean rebuilt)
      throws IOException {
    this.pack = pack;
    this.settings = settings;
    this.analyzer = analyzer;
    this.directory = directory;
    this.rebuilt = rebuilt;
    this.ranker = new KeywordRanker(analyzer, settings);
    this.reader = DirectoryReader.open(directory);
    try {
      this.base = KeywordView.ofPack(reader, pack, analyzer, settings);
      this.view = base;
    } catch (IOException | RuntimeException e) {
      StoredIndexes.closeQuietly(reader);
      throw e;
    }
  }

  /** Builds the index in memory ({@link ByteBuffersDirectory}). */
  public static KeywordFaqIndex build(FaqPack pack) {
    return build(pack, KeywordSettings.defaultFor(pack));
  }

  static KeywordFaqIndex build(FaqPack pack, KeywordSettings settings) {
    Analyzer analyzer = KeywordAnalysis.analyzer(pack, settings);
    Directory dir = new ByteBuffersDirectory();
    try {
      KeywordIndexWriter.write(
          pack, settings, analyzer, dir, KeywordIndexWriter.fingerprint(pack, settings));
      return new KeywordFaqIndex(pack, settings, analyzer, dir, true);
    } catch (IOException e) {
      StoredIndexes.closeQuietly(dir, analyzer);
      throw new UncheckedIOException("Cannot build FAQ index for pack " + pack.id(), e);
    }
  }

  /**
   * Opens the index stored in {@code indexDir} ({@link FSDirectory}); rebuilds it only when it is
   * missing, unreadable, or was built from different pack content (fingerprint stored in the Lucene
   * commit data).
   */
  public static KeywordFaqIndex open(FaqPack pack, Path indexDir) {
    return open(pack, indexDir, KeywordSettings.defaultFor(pack));
  }

  static KeywordFaqIndex open(FaqPack pack, Path indexDir, KeywordSettings settings) {
    Analyzer analyzer = KeywordAnalysis.analyzer(pack, settings);
    try {
      return StoredIndexes.openOrBuild(
          indexDir,
          KeywordIndexWriter.FINGERPRINT_KEY,
          KeywordIndexWriter.fingerprint(pack, settings),
          "FAQ index for pack " + pack.id(),
          (dir, fingerprint) ->
              KeywordIndexWriter.write(pack, settings, analyzer, dir, fingerprint),
          (dir, rebuilt) -> new KeywordFaqIndex(pack, settings, analyzer, dir, rebuilt));
    } catch (RuntimeException e) {
      StoredIndexes.closeQuietly(analyzer);
      throw e;
    }
  }

  @Override
  public String level() {
    return "keyword";
  }

  /**
   * Ranked distinct FAQ entries, best first; empty for blank or stop-word-only text. Never throws
   * on input.
   */
  @Override
  public List<FaqMatch> search(String text, int topK) {
    List<FaqMatch> out = new ArrayList<>();
    for (KeywordRanker.Candidate c : rank(text, topK)) {
      out.add(new FaqMatch(c.faqId(), c.score(), c.entry()));
    }
    return out;
  }

  /**
   * The best entry, or empty when the index abstains: no hits, or score, coverage or query
   * information below the calibrated thresholds (see the class comment).
   */
  @Override
  public Optional<FaqMatch> best(String text) {
    List<KeywordRanker.Candidate> top = rank(text, 2);
    if (top.isEmpty()) {
      return Optional.empty();
    }
    KeywordRanker.Candidate first = top.get(0);
    if (first.score() < settings.minScore()
        || first.coverage() < settings.minCoverage()
        || first.maxPossible() < settings.minQueryIdf()) {
      return Optional.empty();
    }
    if (top.size() > 1 && settings.minMargin() > 0) {
      double margin = (first.score() - top.get(1).score()) / first.score();
      if (margin < settings.minMargin()) {
        return Optional.empty();
      }
    }
    return Optional.of(new FaqMatch(first.faqId(), first.score(), first.entry()));
  }

  /** Number of FAQ entries, learned ones included. */
  public int size() {
    return view.entries().size();
  }

  /**
   * Lays this overlay over the pack's index, replacing the previous one (an empty overlay goes back
   * to the pack as loaded). The stored index is not touched: the overlay's phrasings and entries go
   * into a small index in memory, searched together with the stored one, so the next search sees
   * them. Searches running meanwhile finish on the view they started with. Applying the overlay
   * that is already applied does nothing.
   *
   * @throws IllegalArgumentException when the overlay does not fit the pack (see {@link
   *     FaqOverlay#applyTo}); the previous overlay stays
   */
  public synchronized void apply(FaqOverlay overlay) {
    FaqOverlay next = overlay == null ? FaqOverlay.EMPTY : overlay;
    if (next.equals(view.overlay())) {
      return;
    }
    FaqPack live = next.applyTo(pack);
    if (next.isEmpty()) {
      view = base;
      return;
    }
    try {
      view = base.withOverlay(next, live, analyzer, settings);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot index the FAQ overlay of pack " + pack.id(), e);
    }
  }

  /** The overlay applied now ({@link FaqOverlay#EMPTY} when none). */
  public FaqOverlay overlay() {
    return view.overlay();
  }

  /** True when this instance (re)built its index, false when it reused a stored one. */
  boolean rebuilt() {
    return rebuilt;
  }

  @Override
  public void close() {
    StoredIndexes.closeQuietly(view.overlayIndex(), reader, directory, analyzer);
  }

  /** The ranking with the figures behind each score, on the view applied now. */
  List<KeywordRanker.Candidate> rank(String text, int topK) {
    return ranker.rank(view, text, topK);
  }

  /** Distinct analyzed terms of the text with their counts, in order of first occurrence. */
  Map<String, Integer> queryTerms(String text) {
    return ranker.queryTerms(text);
  }
}
