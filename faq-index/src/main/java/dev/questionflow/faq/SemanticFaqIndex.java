package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
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
 * <p>{@link #open} keeps the vectors, HNSW graph and classifier in a Lucene index under {@code
 * indexDir/semantic} (and the BM25 index under {@code indexDir/keyword}); it is reused when the
 * SHA-256 fingerprint of pack content + model id + format stored in the commit data matches, and
 * rebuilt otherwise (new pack content, other model, unreadable index). Instances are thread-safe;
 * {@link #close()} releases the index and the model.
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

  /**
   * Fusion weights, kNN settings and abstention thresholds (package-private: the tuning harness
   * varies them).
   *
   * @param knnK nearest phrasings collected
   * @param knnTemp temperature of the kNN vote {@code exp(cos / T)}
   * @param wClassifier weight of the classifier probability
   * @param wKnn weight of the kNN vote
   * @param wKeyword weight of the normalised BM25 score
   * @param minScore abstain below this fused score
   * @param minSimilarity abstain when the nearest phrasing's cosine similarity is below this
   * @param confidentSimilarity between {@code minSimilarity} and this, answer only when BM25 agrees
   *     that the question is covered: the best {@link KeywordFaqIndex} score is at least {@code
   *     minKeyword}
   * @param minKeyword see {@code confidentSimilarity}
   */
  record Settings(
      int knnK,
      double knnTemp,
      double wClassifier,
      double wKnn,
      double wKeyword,
      double minScore,
      double minSimilarity,
      double confidentSimilarity,
      double minKeyword,
      SoftmaxClassifier.Params classifier) {

    Settings withWeights(double wClassifier, double wKnn, double wKeyword) {
      return new Settings(
          knnK,
          knnTemp,
          wClassifier,
          wKnn,
          wKeyword,
          minScore,
          minSimilarity,
          confidentSimilarity,
          minKeyword,
          classifier);
    }

    Settings withKnn(int knnK, double knnTemp) {
      return new Settings(
          knnK,
          knnTemp,
          wClassifier,
          wKnn,
          wKeyword,
          minScore,
          minSimilarity,
          confidentSimilarity,
          minKeyword,
          classifier);
    }

    Settings withThresholds(
        double minScore, double minSimilarity, double confidentSimilarity, double minKeyword) {
      return new Settings(
          knnK,
          knnTemp,
          wClassifier,
          wKnn,
          wKeyword,
          minScore,
          minSimilarity,
          confidentSimilarity,
          minKeyword,
          classifier);
    }

    Settings withClassifier(SoftmaxClassifier.Params p) {
      return new Settings(
          knnK,
          knnTemp,
          wClassifier,
          wKnn,
          wKeyword,
          minScore,
          minSimilarity,
          confidentSimilarity,
          minKeyword,
          p);
    }

    /** The abstention rule (see the record comment). */
    boolean answers(double score, double maxSimilarity, double keywordTop) {
      return score >= minScore
          && maxSimilarity >= minSimilarity
          && (maxSimilarity >= confidentSimilarity || keywordTop >= minKeyword);
    }

    /**
     * Defaults per model, tuned by {@code SemanticTuningHarness} (src/test) on a nested split of
     * the BANKING77 training phrasings (fusion weights, k, T: best nested top-1) and CLINC150
     * {@code oos_train} (thresholds: most OOS abstentions while answering >= 99.5% of the nested
     * in-scope questions). Figures in faq-index/README.md. The zh models take the English bge
     * fusion weights with their own similarity threshold (see below).
     */
    static Settings defaults(String modelId) {
      SoftmaxClassifier.Params clf = SoftmaxClassifier.Params.DEFAULT;
      return switch (modelId) {
        case "bge-small-en-v1.5" ->
            new Settings(10, 0.02, 0.15, 0.30, 0.55, 0.0, 0.76, 0.76, 0, clf);
        case "all-minilm-l6-v2-q" ->
            new Settings(50, 0.05, 0.0, 0.35, 0.65, 0.0, 0.49, 0.49, 0, clf);
        case "all-minilm-l6-v2" ->
            new Settings(50, 0.03, 0.05, 0.20, 0.75, 0.0, 0.49, 0.49, 0, clf);
        case "e5-small-v2-q" -> new Settings(30, 0.01, 0.40, 0.20, 0.40, 0.10, 0.88, 0.88, 0, clf);
        case "e5-small-v2" -> new Settings(50, 0.01, 0.40, 0.20, 0.40, 0.0, 0.88, 0.88, 0, clf);
        // bge-small-zh compresses cosines differently from the English bge (out-of-scope Chinese
        // questions
        // reach ~0.60): 0.65 is the 1st percentile of the nearest-phrasing similarity of a quarter
        // of the
        // ecommerce-zh phrasings held out of the index (ZhSemanticCalibrationTest recomputes it)
        case "bge-small-zh-v1.5", "bge-small-zh-v1.5-q" ->
            new Settings(30, 0.02, 0.0, 0.30, 0.70, 0.0, 0.65, 0.65, 0, clf);
        // bge-small-en-v1.5-q (default for en)
        default -> new Settings(30, 0.02, 0.0, 0.30, 0.70, 0.0, 0.79, 0.79, 0, clf);
      };
    }
  }

  /** A ranked candidate with the figures behind its fused score. */
  record Candidate(String faqId, double score, double classifier, double knn, double keyword) {}

  /** The ranking of one question plus the nearest phrasing's similarity. */
  record Ranking(List<Candidate> candidates, double maxSimilarity, double keywordTop) {
    static final Ranking EMPTY = new Ranking(List.of(), 0, 0);
  }

  private final FaqPack pack;
  private final Settings settings;
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
      Settings settings,
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
      return build(pack, embedder, Settings.defaults(model.id()), true);
    } catch (RuntimeException e) {
      embedder.close();
      throw e;
    }
  }

  static SemanticFaqIndex build(
      FaqPack pack, Embedder embedder, Settings settings, boolean ownsEmbedder) {
    Directory dir = new ByteBuffersDirectory();
    KeywordFaqIndex keyword = KeywordFaqIndex.build(pack);
    try {
      write(pack, embedder, settings, dir, fingerprint(pack, embedder.modelId(), settings));
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
      return open(pack, embedder, indexDir, Settings.defaults(model.id()), true, sharedKeyword);
    } catch (RuntimeException e) {
      embedder.close();
      throw e;
    }
  }

  static SemanticFaqIndex open(
      FaqPack pack, Embedder embedder, Path indexDir, Settings settings, boolean ownsEmbedder) {
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
      Settings settings,
      boolean ownsEmbedder,
      KeywordFaqIndex sharedKeyword) {
    Path key = indexDir.toAbsolutePath().normalize().resolve("semantic");
    String fingerprint = fingerprint(pack, embedder.modelId(), settings);
    boolean ownsKeyword = sharedKeyword == null;
    KeywordFaqIndex keyword =
        ownsKeyword ? KeywordFaqIndex.open(pack, indexDir.resolve("keyword")) : sharedKeyword;
    Directory dir = null;
    synchronized (StoredIndexes.lockFor(key)) {
      try {
        Files.createDirectories(key);
        dir = FSDirectory.open(key);
        String stored = StoredIndexes.storedFingerprint(dir, FINGERPRINT_KEY);
        boolean rebuild = !fingerprint.equals(stored);
        if (rebuild) {
          if (stored != null) {
            StoredIndexes.deleteIndexFiles(dir);
          }
          log.info(
              "Building semantic FAQ index for pack {} with {} in {} (stored fingerprint {}, wanted {})",
              pack.id(),
              embedder.modelId(),
              key,
              stored,
              fingerprint);
          write(pack, embedder, settings, dir, fingerprint);
        } else {
          log.debug("Reusing semantic FAQ index for pack {} in {}", pack.id(), key);
        }
        return new SemanticFaqIndex(
            pack, settings, embedder, ownsEmbedder, keyword, ownsKeyword, dir, rebuild);
      } catch (IOException e) {
        StoredIndexes.closeQuietly(ownsKeyword ? keyword : null, dir);
        throw new UncheckedIOException(
            "Cannot open semantic FAQ index for pack " + pack.id() + " in " + key, e);
      } catch (RuntimeException e) {
        StoredIndexes.closeQuietly(ownsKeyword ? keyword : null, dir);
        throw e;
      }
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
    for (Candidate c : rank(text, topK).candidates()) {
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
    Ranking r = rank(text, 1);
    if (r.candidates().isEmpty()) {
      return Optional.empty();
    }
    Candidate c = r.candidates().get(0);
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

  Settings settings() {
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

  Ranking rank(String text, int topK) {
    if (text == null || topK <= 0 || text.isBlank()) {
      return Ranking.EMPTY;
    }
    String t = text.strip();
    if (t.length() > MAX_QUERY_CHARS) {
      t = t.substring(0, MAX_QUERY_CHARS);
    }
    float[] q = queryEmbedding(t);
    return rank(q, keyword.search(t, 10), topK, settings);
  }

  /**
   * Fusion of classifier, kNN vote and BM25 for an already embedded question (the tuning harness
   * reuses it).
   */
  Ranking rank(float[] q, List<FaqMatch> keywordHits, int topK, Settings s) {
    int n = classIds.length;
    double[] pClf = s.wClassifier() > 0 ? classifier.predict(q) : new double[n];
    double[] pKnn = new double[n];
    double maxSim = 0;
    try {
      TopDocs hits = searcher.search(new KnnFloatVectorQuery(F_VECTOR, q, s.knnK()), s.knnK());
      double sum = 0;
      boolean first = true;
      for (ScoreDoc sd : hits.scoreDocs) {
        int c = docClass[sd.doc];
        if (c < 0) {
          continue;
        }
        double cos = 2.0 * sd.score - 1.0; // DOT_PRODUCT score = (1 + cos) / 2
        if (first) {
          maxSim = cos;
          first = false;
        }
        maxSim = Math.max(maxSim, cos);
        double v = Math.exp((cos - 1.0) / s.knnTemp());
        pKnn[c] += v;
        sum += v;
      }
      if (sum > 0) {
        for (int c = 0; c < n; c++) {
          pKnn[c] /= sum;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Semantic FAQ search failed", e);
    }
    double[] pKw = new double[n];
    double kwSum = 0;
    double kwTop = 0;
    for (FaqMatch m : keywordHits) {
      kwSum += m.score();
      kwTop = Math.max(kwTop, m.score());
    }
    if (kwSum > 0) {
      for (FaqMatch m : keywordHits) {
        Integer c = classIndex.get(m.faqId());
        if (c != null) {
          pKw[c] += m.score() / kwSum;
        }
      }
    }
    double wSum = s.wClassifier() + s.wKnn() + s.wKeyword();
    List<Candidate> all = new ArrayList<>(n);
    for (int c = 0; c < n; c++) {
      double score =
          (s.wClassifier() * pClf[c] + s.wKnn() * pKnn[c] + s.wKeyword() * pKw[c]) / wSum;
      all.add(
          new Candidate(
              classIds[c], Math.min(1.0, Math.max(0.0, score)), pClf[c], pKnn[c], pKw[c]));
    }
    all.sort(
        (a, b) ->
            a.score() != b.score()
                ? Double.compare(b.score(), a.score())
                : a.faqId().compareTo(b.faqId()));
    return new Ranking(List.copyOf(all.subList(0, Math.min(topK, all.size()))), maxSim, kwTop);
  }

  float[] embed(String text) {
    return embedder.embed(text);
  }

  private volatile Map<String, float[]> recentQueries;

  /**
   * Keeps the embeddings of the last {@code entries} distinct questions, so one question matched
   * several times in a row (intent detection, then retrieval's ranking and best match) is embedded
   * once. Off by default (benchmarks measure the encoder); the app turns it on.
   */
  public SemanticFaqIndex withQueryCache(int entries) {
    recentQueries =
        entries <= 0
            ? null
            : java.util.Collections.synchronizedMap(
                new java.util.LinkedHashMap<String, float[]>(entries * 2, 0.75f, true) {
                  @Override
                  protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
                    return size() > entries;
                  }
                });
    return this;
  }

  private float[] queryEmbedding(String text) {
    Map<String, float[]> cache = recentQueries;
    if (cache == null) {
      return embedder.embed(text);
    }
    float[] q = cache.get(text);
    if (q == null) {
      q = embedder.embed(text);
      cache.put(text, q);
    }
    return q;
  }

  /** The texts embedded for an entry: the standard question and every distinct phrasing. */
  static List<String> texts(FaqEntry e) {
    Set<String> texts = new LinkedHashSet<>();
    texts.add(e.question().strip());
    for (String p : e.phrasings()) {
      if (!p.isBlank()) {
        texts.add(p.strip());
      }
    }
    return new ArrayList<>(texts);
  }

  private static void write(
      FaqPack pack, Embedder embedder, Settings settings, Directory dir, String fingerprint)
      throws IOException {
    List<String> texts = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    List<String> classIds = new ArrayList<>();
    for (FaqEntry e : pack.entries()) {
      classIds.add(e.id());
      for (String t : texts(e)) {
        texts.add(t);
        ids.add(e.id());
      }
    }
    long t0 = System.nanoTime();
    List<float[]> vectors = embedder.embedAll(texts);
    long t1 = System.nanoTime();
    Map<String, Integer> classIndex = new LinkedHashMap<>();
    for (int i = 0; i < classIds.size(); i++) {
      classIndex.put(classIds.get(i), i);
    }
    int[] y = new int[ids.size()];
    for (int i = 0; i < y.length; i++) {
      y[i] = classIndex.get(ids.get(i));
    }
    SoftmaxClassifier clf =
        SoftmaxClassifier.train(vectors, y, classIds.size(), settings.classifier());
    long t2 = System.nanoTime();
    log.info(
        "Semantic FAQ index for pack {}: embedded {} texts with {} in {} ms, trained classifier in {} ms",
        pack.id(),
        texts.size(),
        embedder.modelId(),
        (t1 - t0) / 1_000_000,
        (t2 - t1) / 1_000_000);
    IndexWriterConfig cfg =
        new IndexWriterConfig()
            .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
            .setCommitOnClose(false);
    try (IndexWriter w = new IndexWriter(dir, cfg)) {
      for (int i = 0; i < texts.size(); i++) {
        Document d = new Document();
        d.add(new StringField(F_ID, ids.get(i), Field.Store.YES));
        d.add(
            new KnnFloatVectorField(
                F_VECTOR, vectors.get(i), VectorSimilarityFunction.DOT_PRODUCT));
        w.addDocument(d);
      }
      Document c = new Document();
      c.add(new StringField(F_KIND, KIND_CLASSIFIER, Field.Store.NO));
      c.add(new StoredField(F_CLASSIFIER, clf.toBytes()));
      c.add(new StoredField(F_CLASSES, String.join("\n", classIds)));
      w.addDocument(c);
      w.forceMerge(1); // one HNSW graph: faster and deterministic searches
      w.setLiveCommitData(Map.of(FINGERPRINT_KEY, fingerprint).entrySet());
      w.commit();
    }
  }

  /**
   * SHA-256 over format, Lucene version, model id, classifier training parameters and the pack
   * content.
   */
  static String fingerprint(FaqPack pack, String modelId, Settings settings) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      List<String> parts = new ArrayList<>();
      parts.add(INDEX_FORMAT);
      parts.add(Version.LATEST.toString());
      parts.add(modelId);
      parts.add(settings.classifier().toString());
      parts.add(pack.id());
      parts.add(pack.language());
      parts.add(Integer.toString(pack.entries().size()));
      for (FaqEntry e : pack.entries()) {
        parts.add(e.id());
        parts.add(e.question());
        parts.add(Integer.toString(e.phrasings().size()));
        parts.addAll(e.phrasings());
      }
      for (String s : parts) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        md.update(
            new byte[] {
              (byte) (b.length >>> 24),
              (byte) (b.length >>> 16),
              (byte) (b.length >>> 8),
              (byte) b.length
            });
        md.update(b);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
