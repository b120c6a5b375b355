package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 */
public final class SemanticFaqIndex implements FaqMatcher, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SemanticFaqIndex.class);

  static final String F_ID = "faq_id";
  static final String F_VECTOR = "vector";
  static final String F_KIND = "kind";
  static final String F_CLASSIFIER = "classifier";
  static final String F_CLASSES = "classes";
  static final String KIND_CLASSIFIER = "classifier";
  static final String FINGERPRINT_KEY = "questionflow.faq.semantic.fingerprint";

  /** Bump when the document layout, classifier training or embedding input changes. */
  static final String INDEX_FORMAT = "faq-semantic/2";

  /** Input beyond this many characters is ignored (the encoders see at most 512 tokens anyway). */
  static final int MAX_QUERY_CHARS = 1000;

  private final FaqPack pack;
  private final SemanticSettings settings;
  private final Embedder embedder;
  private final boolean ownsEmbedder;
  private final KeywordFaqIndex keyword;
  private final boolean ownsKeyword;
  private final Directory directory;
  private final DirectoryReader reader;
  private final SoftmaxClassifier classifier;
  private final boolean rebuilt;

  /** The pack's index with no overlay; {@link #view} is what searches read now. */
  private final View base;

  private volatile View view;

  /**
   * Embeddings of the overlay's texts, kept so that applying the next overlay embeds only what is
   * new (replaced by each {@link #apply}: holds only texts of the overlay applied now).
   */
  private Map<String, float[]> overlayVectors = Map.of();

  /**
   * What one search reads, swapped whole by {@link #apply}.
   *
   * @param classIds the classifier's classes (the pack's entries), then the overlay's new entries
   *     (which the classifier, trained on the pack, gives no probability: they are found by the kNN
   *     vote and BM25)
   * @param docClass the class of each document, {@link Fusion#OUT_OF_SCOPE} for the out-of-scope
   *     examples and the classifier's document
   * @param revision moved by every applied overlay (the match cache's key)
   */
  private record View(
      IndexSearcher searcher,
      String[] classIds,
      Map<String, Integer> classIndex,
      int[] docClass,
      Map<String, FaqEntry> entries,
      FaqOverlay overlay,
      DirectoryReader overlayReader,
      long revision) {}

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
    this.reader = DirectoryReader.open(directory);
    IndexSearcher searcher = new IndexSearcher(reader);
    TopDocs clf = searcher.search(new TermQuery(new Term(F_KIND, KIND_CLASSIFIER)), 1);
    if (clf.scoreDocs.length == 0) {
      throw new IOException("semantic index has no classifier document");
    }
    StoredFields stored = searcher.storedFields();
    Document clfDoc = stored.document(clf.scoreDocs[0].doc);
    this.classifier = SoftmaxClassifier.fromBytes(clfDoc.getBinaryValue(F_CLASSIFIER).bytes);
    String[] classIds = clfDoc.get(F_CLASSES).split("\n", -1);
    Map<String, Integer> idx = new LinkedHashMap<>();
    for (int i = 0; i < classIds.length; i++) {
      idx.put(classIds[i], i);
    }
    int[] docClass = docClasses(reader, idx);
    Map<String, FaqEntry> byId = new LinkedHashMap<>();
    pack.entries().forEach(e -> byId.put(e.id(), e));
    this.base =
        new View(
            searcher,
            classIds,
            Map.copyOf(idx),
            docClass,
            Map.copyOf(byId),
            FaqOverlay.EMPTY,
            null,
            0);
    this.view = base;
  }

  private static int[] docClasses(IndexReader r, Map<String, Integer> classIndex)
      throws IOException {
    int[] docClass = new int[r.maxDoc()];
    Arrays.fill(docClass, Fusion.OUT_OF_SCOPE);
    StoredFields stored = r.storedFields();
    for (int d = 0; d < r.maxDoc(); d++) {
      String id = stored.document(d, Set.of(F_ID)).get(F_ID);
      if (id != null) {
        docClass[d] = classIndex.getOrDefault(id, Fusion.OUT_OF_SCOPE);
      }
    }
    return docClass;
  }

  /**
   * Builds everything in memory with the pack language's default model ({@link
   * FaqEmbeddingModel#defaultFor}).
   */
  public static SemanticFaqIndex build(FaqPack pack) {
    return build(pack, FaqEmbeddingModel.defaultFor(pack.language()));
  }

  /**
   * Builds everything in memory (embeds every phrasing: ~10-60 s for 10,000 phrasings on 2 cores).
   */
  public static SemanticFaqIndex build(FaqPack pack, FaqEmbeddingModel model) {
    Embedder embedder = Embedder.of(model);
    try {
      return build(pack, embedder, SemanticSettings.forPack(pack.id(), model.id()), true);
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
          pack, embedder, settings, dir, fingerprint(pack, embedder.modelId(), settings));
      return new SemanticFaqIndex(pack, settings, embedder, ownsEmbedder, keyword, true, dir, true);
    } catch (IOException e) {
      StoredIndexes.closeQuietly(keyword, dir);
      throw new UncheckedIOException("Cannot build semantic FAQ index for pack " + pack.id(), e);
    } catch (RuntimeException e) {
      StoredIndexes.closeQuietly(keyword, dir);
      throw e;
    }
  }

  /** {@link #open(FaqPack, FaqEmbeddingModel, Path)} with the pack language's default model. */
  public static SemanticFaqIndex open(FaqPack pack, Path indexDir) {
    return open(pack, FaqEmbeddingModel.defaultFor(pack.language()), indexDir);
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
    return open(pack, model, indexDir, null);
  }

  /**
   * Like {@link #open(FaqPack, Path)}, fusing with a keyword index the caller already opened over
   * {@code indexDir/keyword} (the app keeps one for L4 anyway), so that it is not opened twice. The
   * caller keeps owning it: closing this index does not close it.
   */
  public static SemanticFaqIndex open(FaqPack pack, Path indexDir, KeywordFaqIndex keyword) {
    return open(pack, FaqEmbeddingModel.defaultFor(pack.language()), indexDir, keyword);
  }

  private static SemanticFaqIndex open(
      FaqPack pack, FaqEmbeddingModel model, Path indexDir, KeywordFaqIndex sharedKeyword) {
    Embedder embedder = Embedder.of(model);
    try {
      return open(
          pack,
          embedder,
          indexDir,
          SemanticSettings.forPack(pack.id(), model.id()),
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
          FINGERPRINT_KEY,
          fingerprint(pack, embedder.modelId(), settings),
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
    View v = view;
    for (Fusion.Candidate c : rank(v, text, topK).candidates()) {
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
    View v = view;
    Fusion.Ranking r = rank(v, text, 1);
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
      view = withRevision(base, view.revision() + 1);
      overlayVectors = Map.of();
      clearMatchCache();
      return;
    }
    List<String> texts = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (FaqEntry e : next.entries()) {
      for (String t : SemanticIndexWriter.texts(e)) {
        texts.add(t);
        ids.add(e.id());
      }
    }
    for (FaqOverlay.Phrasing p : next.phrasings()) {
      if (!p.text().isBlank()) {
        texts.add(p.text().strip());
        ids.add(p.faqId());
      }
    }
    Map<String, float[]> vectors = new HashMap<>();
    List<String> missing = new ArrayList<>();
    for (String t : texts) {
      float[] known = overlayVectors.get(t);
      if (known != null) {
        vectors.put(t, known);
      } else if (!vectors.containsKey(t) && !missing.contains(t)) {
        missing.add(t);
      }
    }
    if (!missing.isEmpty()) {
      List<float[]> embedded = embedder.embedAll(missing);
      for (int i = 0; i < missing.size(); i++) {
        vectors.put(missing.get(i), embedded.get(i));
      }
    }
    String[] classIds =
        Arrays.copyOf(base.classIds(), base.classIds().length + next.entries().size());
    Map<String, Integer> classIndex = new LinkedHashMap<>(base.classIndex());
    for (int i = 0; i < next.entries().size(); i++) {
      String id = next.entries().get(i).id();
      classIds[base.classIds().length + i] = id;
      classIndex.put(id, base.classIds().length + i);
    }
    try {
      Directory dir = new ByteBuffersDirectory();
      try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig())) {
        for (int i = 0; i < texts.size(); i++) {
          w.addDocument(SemanticIndexWriter.vectorDoc(ids.get(i), vectors.get(texts.get(i))));
        }
        w.commit();
      }
      DirectoryReader overlayReader = DirectoryReader.open(dir);
      int[] added = docClasses(overlayReader, classIndex);
      int[] docClass = Arrays.copyOf(base.docClass(), base.docClass().length + added.length);
      System.arraycopy(added, 0, docClass, base.docClass().length, added.length);
      Map<String, FaqEntry> entries = new LinkedHashMap<>();
      live.entries().forEach(e -> entries.put(e.id(), e));
      // the stored index stays open for the next overlay: the MultiReader must not close it; the
      // previous overlay's reader is left to the garbage collector (in memory, no file handles), as
      // a search may still be running on it
      MultiReader both = new MultiReader(new IndexReader[] {reader, overlayReader}, false);
      view =
          new View(
              new IndexSearcher(both),
              classIds,
              Map.copyOf(classIndex),
              docClass,
              Map.copyOf(entries),
              next,
              overlayReader,
              view.revision() + 1);
      overlayVectors = Map.copyOf(vectors);
      clearMatchCache();
      log.debug(
          "semantic FAQ index of pack {}: overlay of {} entries and {} phrasings applied ({} embedded)",
          pack.id(),
          next.entries().size(),
          next.phrasings().size(),
          missing.size());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot index the FAQ overlay of pack " + pack.id(), e);
    }
  }

  private static View withRevision(View v, long revision) {
    return new View(
        v.searcher(),
        v.classIds(),
        v.classIndex(),
        v.docClass(),
        v.entries(),
        v.overlay(),
        v.overlayReader(),
        revision);
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
        view.overlayReader(), reader, directory, ownsKeyword ? keyword : null);
    if (ownsEmbedder) {
      StoredIndexes.closeQuietly(embedder);
    }
  }

  // ---------------------------------------------------------------------------------------------------------

  Fusion.Ranking rank(String text, int topK) {
    return rank(view, text, topK);
  }

  private Fusion.Ranking rank(View v, String text, int topK) {
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

  private Fusion.Ranking rankUncached(View v, String question, int topK) {
    float[] q = embedder.embed(question);
    return rank(v, q, keyword.search(question, 10), topK, settings);
  }

  /** Fusion of classifier, kNN vote and BM25 for an already embedded question. */
  Fusion.Ranking rank(float[] q, List<FaqMatch> keywordHits, int topK, SemanticSettings s) {
    return rank(view, q, keywordHits, topK, s);
  }

  private Fusion.Ranking rank(
      View v, float[] q, List<FaqMatch> keywordHits, int topK, SemanticSettings s) {
    Signals signals = signals(v, q, keywordHits, s.knnK(), s.wClassifier() > 0);
    int n = v.classIds().length;
    double[] pKnn = Fusion.knnVote(signals.nearest(), s.knnK(), n, s.knnTemp());
    return new Fusion.Ranking(
        Fusion.fuse(v.classIds(), signals.classifier(), pKnn, signals.keyword(), s, topK),
        signals.nearest().maxSimilarity(),
        signals.keywordTop(),
        signals.nearest().outOfScope());
  }

  /**
   * What the fusion is computed from: the classifier's probability per entry, the {@code k} nearest
   * phrasings, and the BM25 shares per entry (entries in the order of {@link #entryIds()}). {@link
   * Calibrator} keeps them to try many fusions of one search.
   */
  record Signals(
      double[] classifier, Fusion.Nearest nearest, double[] keyword, double keywordTop) {}

  Signals signals(float[] q, List<FaqMatch> keywordHits, int k) {
    return signals(view, q, keywordHits, k, true);
  }

  /**
   * @param withClassifier false: the classifier's probabilities are left at 0 (its weight is 0)
   */
  private Signals signals(
      View v, float[] q, List<FaqMatch> keywordHits, int k, boolean withClassifier) {
    int n = v.classIds().length;
    Fusion.Nearest nearest;
    try {
      nearest =
          Fusion.Nearest.of(
              v.searcher().search(new KnnFloatVectorQuery(F_VECTOR, q, k), k).scoreDocs,
              v.docClass());
    } catch (IOException e) {
      throw new UncheckedIOException("Semantic FAQ search failed", e);
    }
    // the classifier knows the pack's entries only: a new entry's probability is 0
    return new Signals(
        withClassifier ? Arrays.copyOf(classifier.predict(q), n) : new double[n],
        nearest,
        Fusion.keywordShares(keywordHits, v.classIndex(), n),
        keywordHits.stream().mapToDouble(FaqMatch::score).max().orElse(0));
  }

  /** The entries' ids in the order of the signals' arrays. */
  String[] entryIds() {
    return view.classIds().clone();
  }

  /** Recent questions' rankings, or null: every question is matched. */
  private volatile MatchCache matchCache;

  /**
   * Keeps the rankings of up to {@code questions} recent questions ({@link MatchCache}), so a
   * question matched several times (intent detection, then retrieval's ranking and best match) or
   * repeated word for word by customers is matched once per FAQ revision. Off by default
   * (benchmarks measure the match); the app turns it on. 0 or less turns it off.
   */
  public SemanticFaqIndex withMatchCache(int questions) {
    matchCache = questions <= 0 ? null : new MatchCache(questions);
    return this;
  }

  /** The match cache's figures, empty when it is off. */
  public Optional<MatchCache.Stats> matchCacheStats() {
    MatchCache cache = matchCache;
    return cache == null ? Optional.empty() : Optional.of(cache.stats());
  }

  private void clearMatchCache() {
    MatchCache cache = matchCache;
    if (cache != null) {
      cache.clear();
    }
  }

  /**
   * SHA-256 over format, Lucene version, model id, classifier training parameters and the pack
   * content.
   */
  static String fingerprint(FaqPack pack, String modelId, SemanticSettings settings) {
    StoredIndexes.Fingerprint h = new StoredIndexes.Fingerprint();
    h.add(INDEX_FORMAT)
        .add(Version.LATEST.toString())
        .add(modelId)
        .add(settings.classifier().toString());
    h.add(pack.id()).add(pack.language()).add(Integer.toString(pack.entries().size()));
    for (FaqEntry e : pack.entries()) {
      h.add(e.id())
          .add(e.question())
          .add(Integer.toString(e.phrasings().size()))
          .addAll(e.phrasings());
    }
    h.add(Integer.toString(pack.outOfScope().size())).addAll(pack.outOfScope());
    return h.hex();
  }
}
