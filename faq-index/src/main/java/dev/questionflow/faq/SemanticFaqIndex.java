package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;

/**
 * L3 semantic matcher: an in-process sentence-embedding model ({@link FaqEmbeddingModel}), a Lucene
 * HNSW vector index ({@link KnnFloatVectorField}) over every standard question and phrasing of the
 * pack, a softmax classifier trained on those embeddings, and the BM25 {@link KeywordFaqIndex},
 * fused into one ranking.
 *
 * <p>Per question: the text is embedded once; then
 *
 * <ul>
 *   <li><b>classifier</b>: softmax regression over the embedding, one class per FAQ entry ({@code
 *       p_clf});
 *   <li><b>kNN vote</b>: the {@code k} nearest phrasings (HNSW), each voting {@code exp(cos / T)}
 *       for its entry, normalised to sum 1 ({@code p_knn});
 *   <li><b>BM25</b>: {@link KeywordFaqIndex#search} scores of the top entries, normalised to sum 1
 *       ({@code p_kw});
 * </ul>
 *
 * and {@link FaqMatch#score()} = {@code w_clf p_clf + w_knn p_knn + w_kw p_kw} (weights sum to 1,
 * so the score is in [0, 1]). {@link #best(String)} abstains when that score is below a threshold,
 * the nearest phrasing's cosine similarity is below a per-model threshold (out-of-scope questions
 * are far from every phrasing), or one of the pack's out-of-scope examples, indexed as vectors of
 * no entry, is about as near as the nearest phrasing ({@link SemanticSettings#minOutOfScopeGap}).
 * The weights and thresholds were tuned on a nested split of the BANKING77 training phrasings and
 * CLINC150 {@code oos_train}; see {@code faq-index/README.md}.
 *
 * <p>{@link #open} keeps the vectors, HNSW graph and classifier under {@code indexDir/semantic}
 * (see {@link StoredIndexes}). Instances are thread-safe; {@link #close()} releases the index and
 * model.
 *
 * <p>Split along its jobs: {@link SemanticIndexWriter} (the stored index: documents, fingerprint),
 * {@link SemanticView} (what a search reads, with the learned overlay) and {@link SemanticRanker}
 * (the ranking); this class opens them, swaps views and decides when to abstain.
 */
public final class SemanticFaqIndex implements FaqMatcher, AutoCloseable {

  private final FaqPack pack;
  private final SemanticSettings settings;
  private final Embedder embedder;
  private final boolean ownsEmbedder;
  private final KeywordFaqIndex keyword;
  private final boolean ownsKeyword;
  private final Directory directory;
  private final DirectoryReader reader;
  private final boolean rebuilt;
  private final SemanticRanker ranker;

  /** The pack's index with no overlay; {@link #view} is what searches read now. */
  private final SemanticView base;

  private volatile SemanticView view;

  private SemanticFaqIndex(
      FaqPack pack,
      SemanticSettings settings,
      Embedder embedder,
      boolean ownsEmbedder,
      KeywordFaqIndex keyword,
      boolean ownsKeyword,
      Directory directory,
      boolean rebuilt)
      throws IOException {
    this.pack = pack;
    this.settings = settings;
    this.embedder = embedder;
    this.ownsEmbedder = ownsEmbedder;
    this.keyword = keyword;
    this.ownsKeyword = ownsKeyword;
    this.directory = directory;
    this.rebuilt = rebuilt;
    this.ranker = new SemanticRanker(embedder, keyword, settings);
    this.reader = DirectoryReader.open(directory);
    this.base = SemanticView.ofPack(reader, pack);
    this.view = base;
  }

  /**
   * Builds everything in memory with the pack's encoder: the one tuned to it when its pack.json
   * names one, else the language's default model ({@link FaqEmbeddingModel#defaultFor}).
   */
  public static SemanticFaqIndex build(FaqPack pack) {
    return build(pack, Embedder.of(pack));
  }

  /**
   * Builds everything in memory (embeds every phrasing: ~10-60 s for 10,000 phrasings on 2 cores).
   */
  public static SemanticFaqIndex build(FaqPack pack, FaqEmbeddingModel model) {
    return build(pack, Embedder.of(model));
  }

  private static SemanticFaqIndex build(FaqPack pack, Embedder embedder) {
    try {
      return build(pack, embedder, SemanticSettings.forPack(pack.id(), embedder.modelId()), true);
    } catch (RuntimeException e) {
      embedder.close();
      throw e;
    }
  }

  static SemanticFaqIndex build(
      FaqPack pack, Embedder embedder, SemanticSettings settings, boolean ownsEmbedder) {
    return build(pack, embedder, settings, ownsEmbedder, KeywordSettings.defaultFor(pack));
  }

  static SemanticFaqIndex build(
      FaqPack pack,
      Embedder embedder,
      SemanticSettings settings,
      boolean ownsEmbedder,
      KeywordSettings keywordSettings) {
    Directory dir = new ByteBuffersDirectory();
    KeywordFaqIndex keyword = KeywordFaqIndex.build(pack, keywordSettings);
    try {
      SemanticIndexWriter.write(
          pack,
          embedder,
          settings,
          dir,
          SemanticIndexWriter.fingerprint(pack, embedder.modelId(), settings));
      return new SemanticFaqIndex(pack, settings, embedder, ownsEmbedder, keyword, true, dir, true);
    } catch (IOException e) {
      StoredIndexes.closeQuietly(keyword, dir);
      throw new UncheckedIOException("Cannot build semantic FAQ index for pack " + pack.id(), e);
    } catch (RuntimeException e) {
      StoredIndexes.closeQuietly(keyword, dir);
      throw e;
    }
  }

  /** {@link #open(FaqPack, FaqEmbeddingModel, Path)} with the pack's encoder. */
  public static SemanticFaqIndex open(FaqPack pack, Path indexDir) {
    return open(pack, Embedder.of(pack), indexDir, null);
  }

  /**
   * Opens the indexes stored under {@code indexDir} ({@code semantic/} and {@code keyword/}),
   * rebuilding each only when it is missing, unreadable, or was built from other pack content or
   * another model. Loads the model.
   *
   * @throws IllegalStateException when the model cannot be loaded (callers fall back to {@link
   *     KeywordFaqIndex})
   */
  public static SemanticFaqIndex open(FaqPack pack, FaqEmbeddingModel model, Path indexDir) {
    return open(pack, Embedder.of(model), indexDir, null);
  }

  /**
   * Like {@link #open(FaqPack, Path)}, fusing with a keyword index the caller already opened over
   * {@code indexDir/keyword} (the app keeps one for L4 anyway), so that it is not opened twice. The
   * caller keeps owning it: closing this index does not close it.
   */
  public static SemanticFaqIndex open(FaqPack pack, Path indexDir, KeywordFaqIndex keyword) {
    return open(pack, Embedder.of(pack), indexDir, keyword);
  }

  private static SemanticFaqIndex open(
      FaqPack pack, Embedder embedder, Path indexDir, KeywordFaqIndex sharedKeyword) {
    try {
      return open(
          pack,
          embedder,
          indexDir,
          SemanticSettings.forPack(pack.id(), embedder.modelId()),
          true,
          sharedKeyword);
    } catch (RuntimeException e) {
      embedder.close();
      throw e;
    }
  }

  static SemanticFaqIndex open(
      FaqPack pack,
      Embedder embedder,
      Path indexDir,
      SemanticSettings settings,
      boolean ownsEmbedder) {
    return open(pack, embedder, indexDir, settings, ownsEmbedder, null);
  }

  /**
   * @param sharedKeyword the caller's keyword index over {@code indexDir/keyword}, or null to open
   *     one here
   */
  private static SemanticFaqIndex open(
      FaqPack pack,
      Embedder embedder,
      Path indexDir,
      SemanticSettings settings,
      boolean ownsEmbedder,
      KeywordFaqIndex sharedKeyword) {
    boolean ownsKeyword = sharedKeyword == null;
    KeywordFaqIndex keyword =
        ownsKeyword ? KeywordFaqIndex.open(pack, indexDir.resolve("keyword")) : sharedKeyword;
    try {
      return StoredIndexes.openOrBuild(
          indexDir.resolve("semantic"),
          SemanticIndexWriter.FINGERPRINT_KEY,
          SemanticIndexWriter.fingerprint(pack, embedder.modelId(), settings),
          "semantic FAQ index for pack " + pack.id() + " with " + embedder.modelId(),
          (dir, fingerprint) ->
              SemanticIndexWriter.write(pack, embedder, settings, dir, fingerprint),
          (dir, rebuilt) ->
              new SemanticFaqIndex(
                  pack, settings, embedder, ownsEmbedder, keyword, ownsKeyword, dir, rebuilt));
    } catch (RuntimeException e) {
      StoredIndexes.closeQuietly(ownsKeyword ? keyword : null);
      throw e;
    }
  }

  @Override
  public String level() {
    return "semantic";
  }

  /**
   * Ranked distinct FAQ entries by fused score, best first; empty for blank text. Never throws on
   * input.
   */
  @Override
  public List<FaqMatch> search(String text, int topK) {
    List<FaqMatch> out = new ArrayList<>();
    SemanticView v = view;
    for (Fusion.Candidate c : ranker.rank(v, text, topK).candidates()) {
      out.add(new FaqMatch(c.faqId(), c.score(), v.entries().get(c.faqId())));
    }
    return out;
  }

  /**
   * The best entry, or empty when the matcher abstains: fused score below the calibrated minimum,
   * the nearest phrasing less similar than the model's calibrated minimum cosine similarity, or an
   * out-of-scope example of the pack about as near as the nearest phrasing ({@link
   * SemanticSettings#minOutOfScopeGap}).
   */
  @Override
  public Optional<FaqMatch> best(String text) {
    SemanticView v = view;
    Fusion.Ranking r = ranker.rank(v, text, 1);
    if (r.candidates().isEmpty()) {
      return Optional.empty();
    }
    Fusion.Candidate c = r.candidates().get(0);
    if (!settings.answers(c.score(), r.maxSimilarity(), r.keywordTop(), r.outOfScopeSimilarity())) {
      return Optional.empty();
    }
    return Optional.of(new FaqMatch(c.faqId(), c.score(), v.entries().get(c.faqId())));
  }

  /** The embedding model id, e.g. {@code bge-small-en-v1.5-q}. */
  public String modelId() {
    return embedder.modelId();
  }

  /**
   * Lays this overlay over the pack's index, replacing the previous one (empty: the pack as
   * loaded), and applies it to the keyword index this one fuses with as well. The overlay's texts
   * are embedded (only those the previous overlay did not have) and kept in a small vector index in
   * memory that kNN searches together with the stored one; the stored index and the classifier are
   * not touched, so a new entry is found by the kNN vote and BM25 only. Searches running meanwhile
   * finish on the view they started with. Applying the overlay that is already applied does
   * nothing.
   *
   * @throws IllegalArgumentException when the overlay does not fit the pack ({@link
   *     FaqOverlay#applyTo}); the previous overlay stays
   */
  public synchronized void apply(FaqOverlay overlay) {
    FaqOverlay next = overlay == null ? FaqOverlay.EMPTY : overlay;
    FaqPack live = next.applyTo(pack); // validates before anything changes
    keyword.apply(next);
    if (next.equals(view.overlay())) {
      return;
    }
    if (next.isEmpty()) {
      view = base.withRevision(view.revision() + 1);
      ranker.clearCache();
      return;
    }
    try {
      view = base.withOverlay(view, next, live, embedder);
      ranker.clearCache();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot index the FAQ overlay of pack " + pack.id(), e);
    }
  }

  /** The overlay applied now ({@link FaqOverlay#EMPTY} when none). */
  public FaqOverlay overlay() {
    return view.overlay();
  }

  /** The pack this index was built from (without the overlay). */
  public FaqPack pack() {
    return pack;
  }

  /** True when this instance (re)built its semantic index, false when it reused a stored one. */
  boolean rebuilt() {
    return rebuilt;
  }

  KeywordFaqIndex keyword() {
    return keyword;
  }

  SemanticSettings settings() {
    return settings;
  }

  @Override
  public void close() {
    StoredIndexes.closeQuietly(
        view.overlayIndex(), reader, directory, ownsKeyword ? keyword : null);
    if (ownsEmbedder) {
      StoredIndexes.closeQuietly(embedder);
    }
  }

  /** The signals of an already embedded question on the view applied now (for calibration). */
  SemanticRanker.Signals signals(float[] q, List<FaqMatch> keywordHits, int k) {
    return SemanticRanker.signals(view, q, keywordHits, k, true);
  }

  /** The entries' ids in the order of the signals' arrays. */
  String[] entryIds() {
    return view.classIds().clone();
  }

  /**
   * Keeps the rankings of up to {@code questions} recent questions ({@link MatchCache}), so a
   * question matched several times (intent detection, then retrieval's ranking and best match) or
   * repeated word for word by customers is matched once per FAQ revision. Off by default
   * (benchmarks measure the match); the app turns it on. 0 or less turns it off.
   */
  public SemanticFaqIndex withMatchCache(int questions) {
    ranker.cacheRankings(questions);
    return this;
  }

  /** The match cache's figures, empty when it is off. */
  public Optional<MatchCache.Stats> matchCacheStats() {
    return ranker.cacheStats();
  }
}
