package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
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
 * so the score is in [0, 1]). {@link #best(String)} abstains when that score is below a threshold
 * or the nearest phrasing's cosine similarity is below a per-model threshold (out-of-scope
 * questions are far from every phrasing). The weights and thresholds were tuned on a nested split
 * of the BANKING77 training phrasings and CLINC150 {@code oos_train}; see {@code
 * faq-index/README.md}.
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
  static final String INDEX_FORMAT = "faq-semantic/1";

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
  private final IndexSearcher searcher;
  private final SoftmaxClassifier classifier;
  private final String[] classIds;
  private final Map<String, Integer> classIndex;
  private final int[] docClass;
  private final Map<String, FaqEntry> entries;
  private final boolean rebuilt;

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
    this.queries = embedder;
    this.ownsEmbedder = ownsEmbedder;
    this.keyword = keyword;
    this.ownsKeyword = ownsKeyword;
    this.directory = directory;
    this.rebuilt = rebuilt;
    this.reader = DirectoryReader.open(directory);
    this.searcher = new IndexSearcher(reader);
    TopDocs clf = searcher.search(new TermQuery(new Term(F_KIND, KIND_CLASSIFIER)), 1);
    if (clf.scoreDocs.length == 0) {
      throw new IOException("semantic index has no classifier document");
    }
    StoredFields stored = searcher.storedFields();
    Document clfDoc = stored.document(clf.scoreDocs[0].doc);
    this.classifier = SoftmaxClassifier.fromBytes(clfDoc.getBinaryValue(F_CLASSIFIER).bytes);
    this.classIds = clfDoc.get(F_CLASSES).split("\n", -1);
    Map<String, Integer> idx = new LinkedHashMap<>();
    for (int i = 0; i < classIds.length; i++) {
      idx.put(classIds[i], i);
    }
    this.classIndex = Map.copyOf(idx);
    this.docClass = new int[reader.maxDoc()];
    java.util.Arrays.fill(docClass, -1);
    for (int d = 0; d < reader.maxDoc(); d++) {
      String id = stored.document(d, Set.of(F_ID)).get(F_ID);
      if (id != null) {
        docClass[d] = classIndex.getOrDefault(id, -1);
      }
    }
    Map<String, FaqEntry> byId = new LinkedHashMap<>();
    pack.entries().forEach(e -> byId.put(e.id(), e));
    this.entries = Map.copyOf(byId);
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
    for (Fusion.Candidate c : rank(text, topK).candidates()) {
      out.add(new FaqMatch(c.faqId(), c.score(), entries.get(c.faqId())));
    }
    return out;
  }

  /**
   * The best entry, or empty when the matcher abstains: fused score below the calibrated minimum,
   * or the nearest phrasing less similar than the model's calibrated minimum cosine similarity.
   */
  @Override
  public Optional<FaqMatch> best(String text) {
    Fusion.Ranking r = rank(text, 1);
    if (r.candidates().isEmpty()) {
      return Optional.empty();
    }
    Fusion.Candidate c = r.candidates().get(0);
    if (!settings.answers(c.score(), r.maxSimilarity(), r.keywordTop())) {
      return Optional.empty();
    }
    return Optional.of(new FaqMatch(c.faqId(), c.score(), entries.get(c.faqId())));
  }

  /** The embedding model id, e.g. {@code bge-small-en-v1.5-q}. */
  public String modelId() {
    return embedder.modelId();
  }

  /** The pack this index was built from. */
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
    StoredIndexes.closeQuietly(reader, directory, ownsKeyword ? keyword : null);
    if (ownsEmbedder) {
      StoredIndexes.closeQuietly(embedder);
    }
  }

  // ---------------------------------------------------------------------------------------------------------

  Fusion.Ranking rank(String text, int topK) {
    if (text == null || topK <= 0 || text.isBlank()) {
      return Fusion.Ranking.EMPTY;
    }
    String t = text.strip();
    if (t.length() > MAX_QUERY_CHARS) {
      t = t.substring(0, MAX_QUERY_CHARS);
    }
    float[] q = queries.embed(t);
    return rank(q, keyword.search(t, 10), topK, settings);
  }

  /**
   * Fusion of classifier, kNN vote and BM25 for an already embedded question (the tuning harness
   * reuses it).
   */
  Fusion.Ranking rank(float[] q, List<FaqMatch> keywordHits, int topK, SemanticSettings s) {
    int n = classIds.length;
    double[] pClf = s.wClassifier() > 0 ? classifier.predict(q) : new double[n];
    Fusion.Vote vote;
    try {
      TopDocs hits = searcher.search(new KnnFloatVectorQuery(F_VECTOR, q, s.knnK()), s.knnK());
      vote = Fusion.knnVote(hits.scoreDocs, docClass, n, s.knnTemp());
    } catch (IOException e) {
      throw new UncheckedIOException("Semantic FAQ search failed", e);
    }
    double kwTop = keywordHits.stream().mapToDouble(FaqMatch::score).max().orElse(0);
    double[] pKw = Fusion.keywordShares(keywordHits, classIndex, n);
    return new Fusion.Ranking(
        Fusion.fuse(classIds, pClf, vote.shares(), pKw, s, topK), vote.maxSimilarity(), kwTop);
  }

  /**
   * The signals the fusion is computed from, for {@link Calibrator}: the classifier's probability
   * per entry, the {@code k} nearest phrasings (entry index and cosine similarity, nearest first)
   * and the BM25 shares per entry (entries in the order of {@link #entryIds()}).
   */
  record Signals(
      double[] classifier,
      int[] nearestEntry,
      double[] nearestCos,
      double[] keyword,
      double keywordTop) {}

  Signals signals(float[] q, List<FaqMatch> keywordHits, int k) {
    int[] nearestEntry;
    double[] nearestCos;
    try {
      ScoreDoc[] hits = searcher.search(new KnnFloatVectorQuery(F_VECTOR, q, k), k).scoreDocs;
      nearestEntry = new int[hits.length];
      nearestCos = new double[hits.length];
      int n = 0;
      for (ScoreDoc sd : hits) {
        if (docClass[sd.doc] >= 0) {
          nearestEntry[n] = docClass[sd.doc];
          nearestCos[n++] = 2.0 * sd.score - 1.0; // DOT_PRODUCT score = (1 + cos) / 2
        }
      }
      nearestEntry = java.util.Arrays.copyOf(nearestEntry, n);
      nearestCos = java.util.Arrays.copyOf(nearestCos, n);
    } catch (IOException e) {
      throw new UncheckedIOException("Semantic FAQ search failed", e);
    }
    return new Signals(
        classifier.predict(q),
        nearestEntry,
        nearestCos,
        Fusion.keywordShares(keywordHits, classIndex, classIds.length),
        keywordHits.stream().mapToDouble(FaqMatch::score).max().orElse(0));
  }

  /** The entries' ids in the order of the signals' arrays. */
  String[] entryIds() {
    return classIds.clone();
  }

  /** What embeds questions: the model, or {@link QueryCache} around it. */
  private volatile Embedder queries;

  /**
   * Keeps the embeddings of the last {@code entries} distinct questions, so one question matched
   * several times in a row (intent detection, then retrieval's ranking and best match) is embedded
   * once. Off by default (benchmarks measure the encoder); the app turns it on.
   */
  public SemanticFaqIndex withQueryCache(int entries) {
    queries = entries <= 0 ? embedder : new QueryCache(embedder, entries);
    return this;
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
    return h.hex();
  }
}
