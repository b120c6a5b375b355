package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * SHOULD clauses (at most {@value #MAX_QUERY_TERMS} distinct terms), so no user input can cause a
 * parse error; blank or stop-word-only text gives no results. Searches are thread-safe (one {@link
 * IndexSearcher}, reused).
 */
public final class KeywordFaqIndex implements FaqMatcher, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KeywordFaqIndex.class);

  static final String F_ID = "faq_id";
  static final String F_TEXT = "text";
  static final String F_KIND = "kind";
  static final String FINGERPRINT_KEY = "questionflow.faq.fingerprint";

  /** Bump when the document layout or analysis changes, so stored indexes are rebuilt. */
  static final String INDEX_FORMAT =
      "faq-index/2"; // 2: zh analysed with SmartChineseAnalyzer (was CJKAnalyzer)

  /** At most this many distinct query terms are used (very long input cannot blow up the query). */
  static final int MAX_QUERY_TERMS = 64;

  /** Input beyond this many characters is ignored. */
  static final int MAX_QUERY_CHARS = 4000;

  /** A ranked candidate with the raw figures behind its score. */
  record Candidate(
      String faqId,
      double aggregate,
      double bestHit,
      double maxPossible,
      double score,
      double coverage,
      FaqEntry entry) {}

  private final FaqPack pack;
  private final KeywordSettings settings;
  private final Analyzer analyzer;
  private final Directory directory;
  private final DirectoryReader reader;
  private final boolean rebuilt;

  /** The pack's index with no overlay, and the index searched now (with the overlay, if any). */
  private final View base;

  private volatile View view;

  /**
   * What one search reads, swapped whole by {@link #apply} so a search never sees half an update.
   *
   * @param reader the stored index, or it and the overlay's in-memory index under one {@link
   *     MultiReader} (statistics such as IDF and average length span both)
   * @param docFaqId each document's FAQ entry ID, read once when the view is made: mapping a hit to
   *     its entry then costs an array read instead of decompressing a block of stored fields per
   *     hit
   * @param vocabulary analyzed terms of each entry's question, phrasings and keywords
   */
  private record View(
      IndexReader reader,
      IndexSearcher searcher,
      String[] docFaqId,
      CollectionStatistics textStats,
      Map<String, Set<String>> vocabulary,
      Map<String, FaqEntry> entries,
      FaqOverlay overlay,
      DirectoryReader overlayReader,
      Map<String, Integer> docsPerEntry) {}

  /** How many documents each entry has (its question, phrasings, keywords). */
  private static Map<String, Integer> docsPerEntry(String[] docFaqId) {
    Map<String, Integer> counts = new HashMap<>();
    for (String id : docFaqId) {
      if (id != null) {
        counts.merge(id, 1, Integer::sum);
      }
    }
    return Map.copyOf(counts);
  }

  private static String[] faqIdsByDoc(IndexSearcher searcher, int maxDoc) throws IOException {
    String[] ids = new String[maxDoc];
    var stored = searcher.storedFields();
    for (int doc = 0; doc < maxDoc; doc++) {
      ids[doc] = stored.document(doc, Set.of(F_ID)).get(F_ID);
    }
    return ids;
  }

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
    Map<String, FaqEntry> byId = new HashMap<>();
    for (FaqEntry e : pack.entries()) {
      byId.put(e.id(), e);
    }
    this.reader = DirectoryReader.open(directory);
    try {
      IndexSearcher searcher = searcher(reader);
      Map<String, Set<String>> vocab = new HashMap<>();
      for (FaqEntry e : pack.entries()) {
        vocab.put(e.id(), Set.copyOf(entryTerms(e)));
      }
      String[] ids = faqIdsByDoc(searcher, reader.maxDoc());
      this.base =
          new View(
              reader,
              searcher,
              ids,
              searcher.collectionStatistics(F_TEXT),
              Map.copyOf(vocab),
              Map.copyOf(byId),
              FaqOverlay.EMPTY,
              null,
              docsPerEntry(ids));
      this.view = base;
    } catch (IOException | RuntimeException e) {
      StoredIndexes.closeQuietly(reader);
      throw e;
    }
  }

  private IndexSearcher searcher(IndexReader r) {
    IndexSearcher s = new IndexSearcher(r);
    s.setSimilarity(similarity(settings));
    return s;
  }

  /** Analyzed terms of an entry's question, phrasings and keywords. */
  private Set<String> entryTerms(FaqEntry e) {
    Set<String> terms = new HashSet<>();
    terms.addAll(KeywordAnalysis.terms(analyzer, e.question(), Integer.MAX_VALUE).keySet());
    for (String p : e.phrasings()) {
      terms.addAll(KeywordAnalysis.terms(analyzer, p, Integer.MAX_VALUE).keySet());
    }
    terms.addAll(
        KeywordAnalysis.terms(analyzer, String.join(" ", e.keywords()), Integer.MAX_VALUE)
            .keySet());
    return terms;
  }

  /** Builds the index in memory ({@link ByteBuffersDirectory}). */
  public static KeywordFaqIndex build(FaqPack pack) {
    return build(pack, KeywordSettings.defaultFor(pack));
  }

  static KeywordFaqIndex build(FaqPack pack, KeywordSettings settings) {
    Analyzer analyzer = KeywordAnalysis.analyzer(pack, settings);
    Directory dir = new ByteBuffersDirectory();
    try {
      write(pack, settings, analyzer, dir, fingerprint(pack, settings));
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
          FINGERPRINT_KEY,
          fingerprint(pack, settings),
          "FAQ index for pack " + pack.id(),
          (dir, fingerprint) -> write(pack, settings, analyzer, dir, fingerprint),
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
    for (Candidate c : rank(text, topK)) {
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
    List<Candidate> top = rank(text, 2);
    if (top.isEmpty()) {
      return Optional.empty();
    }
    Candidate first = top.get(0);
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
      Directory dir = new ByteBuffersDirectory();
      IndexWriterConfig cfg =
          new IndexWriterConfig(analyzer)
              .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
              .setSimilarity(similarity(settings));
      try (IndexWriter w = new IndexWriter(dir, cfg)) {
        for (FaqEntry e : next.entries()) {
          addEntry(w, e);
        }
        for (FaqOverlay.Phrasing p : next.phrasings()) {
          w.addDocument(doc(p.faqId(), "learned", p.text()));
        }
        w.commit();
      }
      DirectoryReader overlayReader = DirectoryReader.open(dir);
      // the stored index stays open for the next overlay: the MultiReader must not close it
      MultiReader both = new MultiReader(new IndexReader[] {reader, overlayReader}, false);
      IndexSearcher searcher = searcher(both);
      String[] ids = new String[both.maxDoc()];
      System.arraycopy(base.docFaqId(), 0, ids, 0, base.docFaqId().length);
      String[] added = faqIdsByDoc(searcher(overlayReader), overlayReader.maxDoc());
      System.arraycopy(added, 0, ids, base.docFaqId().length, added.length);
      Map<String, Set<String>> vocab = new HashMap<>(base.vocabulary());
      Map<String, FaqEntry> entries = new HashMap<>();
      for (FaqEntry e : live.entries()) {
        entries.put(e.id(), e);
      }
      for (String id : next.touchedIds()) {
        vocab.put(id, Set.copyOf(entryTerms(entries.get(id))));
      }
      // the previous overlay's reader is not closed: a search may still be running on it, and an
      // in-memory reader holds no file handles, so the garbage collector takes it with its view
      view =
          new View(
              both,
              searcher,
              ids,
              searcher.collectionStatistics(F_TEXT),
              Map.copyOf(vocab),
              Map.copyOf(entries),
              next,
              overlayReader,
              docsPerEntry(ids));
      log.debug(
          "keyword FAQ index of pack {}: overlay of {} entries and {} phrasings applied",
          pack.id(),
          next.entries().size(),
          next.phrasings().size());
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
    StoredIndexes.closeQuietly(view.overlayReader(), reader, directory, analyzer);
  }

  // ---------------------------------------------------------------------------------------------------------

  List<Candidate> rank(String text, int topK) {
    if (text == null || topK <= 0 || text.isBlank()) {
      return List.of();
    }
    String t = text.length() > MAX_QUERY_CHARS ? text.substring(0, MAX_QUERY_CHARS) : text;
    Map<String, Integer> terms = queryTerms(t);
    if (terms.isEmpty()) {
      return List.of();
    }
    View v = view; // one view for the whole search, even when an overlay is applied meanwhile
    try {
      BooleanQuery.Builder q = new BooleanQuery.Builder();
      Map<String, Double> termIdf = new HashMap<>();
      double maxPossible = 0;
      for (Map.Entry<String, Integer> term : terms.entrySet()) {
        Term lt = new Term(F_TEXT, term.getKey());
        Query tq = new TermQuery(lt);
        int count = term.getValue();
        if (count > 1) {
          tq = new BoostQuery(tq, count);
        }
        q.add(tq, BooleanClause.Occur.SHOULD);
        double idf = idf(v, lt);
        termIdf.put(term.getKey(), idf);
        maxPossible += count * idf;
      }
      TopDocs top = v.searcher().search(q.build(), settings.hitsToCollect());
      if (top.scoreDocs.length == 0 || maxPossible <= 0) {
        return List.of();
      }
      Map<String, double[]> perFaq =
          new LinkedHashMap<>(); // id -> [sum of best hits, hits used, best hit]
      for (ScoreDoc sd : top.scoreDocs) {
        String id = v.docFaqId()[sd.doc];
        double[] acc = perFaq.computeIfAbsent(id, k -> new double[3]);
        if (acc[1] < settings.hitsPerFaq()) { // hits arrive best first
          acc[0] += sd.score;
          acc[1]++;
          acc[2] = Math.max(acc[2], sd.score);
        }
      }
      List<Candidate> ranked = new ArrayList<>(perFaq.size());
      for (Map.Entry<String, double[]> e : perFaq.entrySet()) {
        double[] acc = e.getValue();
        // the mean of the entry's best hits, over as many as it has documents: a learned entry
        // with a question and one phrasing must be able to reach the score of one with hundreds
        int hits = Math.min(settings.hitsPerFaq(), v.docsPerEntry().getOrDefault(e.getKey(), 1));
        double score = Math.min(1.0, acc[0] / (Math.max(1, hits) * maxPossible));
        Set<String> vocab = v.vocabulary().getOrDefault(e.getKey(), Set.of());
        double covered = 0;
        for (Map.Entry<String, Integer> term : terms.entrySet()) {
          if (vocab.contains(term.getKey())) {
            covered += term.getValue() * termIdf.get(term.getKey());
          }
        }
        double coverage = covered / maxPossible;
        ranked.add(
            new Candidate(
                e.getKey(),
                acc[0],
                acc[2],
                maxPossible,
                score * coverage,
                coverage,
                v.entries().get(e.getKey())));
      }
      // rank by BM25 aggregate x coverage (measured: +1.2 points top-1 over the aggregate alone)
      ranked.sort(
          Comparator.comparingDouble(Candidate::score).reversed().thenComparing(Candidate::faqId));
      return ranked.size() > topK ? List.copyOf(ranked.subList(0, topK)) : ranked;
    } catch (IOException e) {
      throw new UncheckedIOException("FAQ index search failed", e);
    }
  }

  /** Distinct analyzed terms of the text with their counts, in order of first occurrence. */
  Map<String, Integer> queryTerms(String text) {
    return KeywordAnalysis.terms(analyzer, text, MAX_QUERY_TERMS);
  }

  /**
   * BM25 IDF as Lucene computes it; terms the index has never seen get the highest IDF (docFreq 0).
   */
  private static double idf(View v, Term term) throws IOException {
    long docCount = v.textStats() == null ? v.reader().numDocs() : v.textStats().docCount();
    int docFreq = v.reader().docFreq(term);
    return Math.log(1 + (docCount - docFreq + 0.5D) / (docFreq + 0.5D));
  }

  private static BM25Similarity similarity(KeywordSettings s) {
    return new BM25Similarity(s.k1(), s.b());
  }

  private static void write(
      FaqPack pack, KeywordSettings settings, Analyzer analyzer, Directory dir, String fingerprint)
      throws IOException {
    IndexWriterConfig cfg =
        new IndexWriterConfig(analyzer)
            .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
            .setSimilarity(similarity(settings))
            .setCommitOnClose(false);
    try (IndexWriter w = new IndexWriter(dir, cfg)) {
      for (FaqEntry e : pack.entries()) {
        addEntry(w, e);
      }
      w.setLiveCommitData(Map.of(FINGERPRINT_KEY, fingerprint).entrySet());
      w.commit();
    }
  }

  private static void addEntry(IndexWriter w, FaqEntry e) throws IOException {
    w.addDocument(doc(e.id(), "question", e.question()));
    for (String p : e.phrasings()) {
      w.addDocument(doc(e.id(), "phrasing", p));
    }
    if (!e.keywords().isEmpty()) {
      w.addDocument(doc(e.id(), "keywords", String.join(" ", e.keywords())));
    }
  }

  private static Document doc(String id, String kind, String text) {
    Document d = new Document();
    d.add(new StringField(F_ID, id, Field.Store.YES));
    d.add(new StoredField(F_KIND, kind));
    d.add(new TextField(F_TEXT, text, Field.Store.NO));
    return d;
  }

  /**
   * SHA-256 over the index format, the Lucene version, the analysis settings and the whole pack
   * content.
   */
  static String fingerprint(FaqPack pack, KeywordSettings settings) {
    StoredIndexes.Fingerprint h = new StoredIndexes.Fingerprint();
    h.add(INDEX_FORMAT)
        .add(Version.LATEST.toString())
        .add("chatStopwords=" + settings.chatStopwords())
        .add(settings.chatStopwords() ? KeywordAnalysis.stopwordsText(pack.language()) : null);
    h.add(pack.id()).add(pack.language()).add(pack.name()).add(pack.attribution());
    h.add(Integer.toString(pack.entries().size()));
    for (FaqEntry e : pack.entries()) {
      h.add(e.id()).add(e.question()).add(e.answer()).add(e.category());
      h.add(Integer.toString(e.phrasings().size())).addAll(e.phrasings());
      h.add(Integer.toString(e.keywords().size())).addAll(e.keywords());
    }
    return h.hex();
  }
}
