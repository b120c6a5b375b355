package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
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
 * <p>Ranking: the hits of a query (top {@value #DEFAULT_HITS_TO_COLLECT} documents) are aggregated
 * per FAQ id as the sum of the entry's best {@value #DEFAULT_HITS_PER_FAQ} hit scores, normalised
 * by the highest score the query's own terms could reach ({@value #DEFAULT_HITS_PER_FAQ} x the sum
 * of their IDFs), and multiplied by the entry's <em>coverage</em>: the IDF-weighted share of the
 * query terms that occur anywhere in the entry (question, phrasings, keywords). That product is
 * {@link FaqMatch#score()}, in [0, 1]; words the pack has never seen lower it.
 *
 * <p>{@link #best(String)} abstains when there is no hit, the score is below {@value
 * #DEFAULT_MIN_SCORE}, the coverage is below {@value #DEFAULT_MIN_COVERAGE}, or the query carries
 * too little information (sum of term IDFs below {@value #DEFAULT_MIN_QUERY_IDF}, e.g. the single
 * word "card"). See {@code faq-index/README.md} for how these defaults were measured.
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

  static final int DEFAULT_HITS_TO_COLLECT = 100;
  static final int DEFAULT_HITS_PER_FAQ = 5;

  /** Abstain when {@link FaqMatch#score()} is below this. */
  static final double DEFAULT_MIN_SCORE = 0.08;

  /** Abstain when less than this share of the query's IDF mass is vocabulary of the best entry. */
  static final double DEFAULT_MIN_COVERAGE = 0.60;

  /**
   * Abstain when the query carries less information than this (sum of term IDFs; "card" alone is
   * ~1.3).
   */
  static final double DEFAULT_MIN_QUERY_IDF = 3.0;

  /**
   * Relative margin to the runner-up; 0 = off (measured: it costs more in-scope answers than it
   * saves).
   */
  static final double DEFAULT_MIN_MARGIN = 0.0;

  /**
   * Chinese ("zh") packs: a small hand-written pack (ecommerce-zh: 28 entries x 8 phrasings) has a
   * much smaller vocabulary than BANKING77, and SmartCN splits words it does not know into single
   * characters, so coverage and score run lower for in-scope questions; measured on {@code
   * packs/ecommerce-zh/eval} (see the README).
   */
  static final double DEFAULT_ZH_MIN_SCORE = 0.05;

  static final double DEFAULT_ZH_MIN_COVERAGE = 0.40;

  /** At most this many distinct query terms are used (very long input cannot blow up the query). */
  static final int MAX_QUERY_TERMS = 64;

  /** Input beyond this many characters is ignored. */
  static final int MAX_QUERY_CHARS = 4000;

  /** Tuning knobs (package-private: the calibration test varies them). */
  record Settings(
      float k1,
      float b,
      int hitsToCollect,
      int hitsPerFaq,
      boolean chatStopwords,
      double minScore,
      double minCoverage,
      double minQueryIdf,
      double minMargin) {
    static final Settings DEFAULT =
        new Settings(
            1.2f,
            0.75f,
            DEFAULT_HITS_TO_COLLECT,
            DEFAULT_HITS_PER_FAQ,
            true,
            DEFAULT_MIN_SCORE,
            DEFAULT_MIN_COVERAGE,
            DEFAULT_MIN_QUERY_IDF,
            DEFAULT_MIN_MARGIN);
    static final Settings DEFAULT_ZH =
        DEFAULT.withThresholds(
            DEFAULT_ZH_MIN_SCORE,
            DEFAULT_ZH_MIN_COVERAGE,
            DEFAULT_MIN_QUERY_IDF,
            DEFAULT_MIN_MARGIN);

    /** The defaults for the pack's language. */
    static Settings defaultFor(FaqPack pack) {
      return "zh".equals(pack.language()) ? DEFAULT_ZH : DEFAULT;
    }

    Settings withThresholds(
        double minScore, double minCoverage, double minQueryIdf, double minMargin) {
      return new Settings(
          k1,
          b,
          hitsToCollect,
          hitsPerFaq,
          chatStopwords,
          minScore,
          minCoverage,
          minQueryIdf,
          minMargin);
    }

    Settings withStopwords(boolean chat) {
      return new Settings(
          k1, b, hitsToCollect, hitsPerFaq, chat, minScore, minCoverage, minQueryIdf, minMargin);
    }
  }

  /** A ranked candidate with the raw figures behind its score. */
  record Candidate(
      String faqId,
      double aggregate,
      double bestHit,
      double maxPossible,
      double score,
      double coverage) {}

  /**
   * Lucene's English stop words plus pronouns, auxiliaries and chit-chat words that carry no FAQ
   * topic ("can you help me", "thanks", "hello" must not match an entry).
   */
  static final CharArraySet EN_STOPWORDS;

  static {
    CharArraySet set = new CharArraySet(EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, true);
    set.addAll(
        List.of(
            "i",
            "i'm",
            "im",
            "me",
            "my",
            "mine",
            "myself",
            "you",
            "your",
            "yours",
            "we",
            "us",
            "our",
            "he",
            "she",
            "him",
            "her",
            "his",
            "its",
            "them",
            "am",
            "been",
            "being",
            "has",
            "have",
            "had",
            "do",
            "does",
            "did",
            "can",
            "could",
            "would",
            "should",
            "shall",
            "may",
            "might",
            "must",
            "so",
            "just",
            "please",
            "pls",
            "hi",
            "hello",
            "hey",
            "thanks",
            "thank",
            "ok",
            "okay",
            "yes",
            "yeah",
            "help",
            "someone",
            "anyone",
            "something",
            "anything",
            "get",
            "got",
            "know",
            "tell",
            "want",
            "need",
            "like",
            "from",
            "about",
            "what",
            "what's",
            "whats",
            "which",
            "who",
            "how",
            "here",
            "there's",
            "some",
            "any"));
    EN_STOPWORDS = CharArraySet.unmodifiableSet(set);
  }

  /**
   * SmartChineseAnalyzer's stop set (punctuation) plus particles, pronouns, question words and
   * politeness that carry no FAQ topic ("请问一下", "怎么办", "吗" must not count against an entry's
   * coverage). Negations (不, 没) and content characters are kept: SmartCN splits words it does not
   * know into single characters (下单 -> 下 单, 收货 -> 收 货), so such characters must not be stop words.
   */
  static final CharArraySet ZH_STOPWORDS;

  static {
    CharArraySet set = new CharArraySet(SmartChineseAnalyzer.getDefaultStopSet(), true);
    set.addAll(
        List.of(
            "的", "地", "得", "了", "着", "过", "吗", "呢", "啊", "吧", "呀", "哦", "噢", "喔", "嘛", "么", "哈",
            "啦", "呗", "哇", "嗯", "诶", "哎", "嘞", "咯", "我", "你", "您", "他", "她", "它", "我们", "你们", "咱",
            "咱们", "请", "请问", "麻烦", "谢谢", "你好", "您好", "一下", "怎么", "怎么办", "怎么样", "怎样", "如何", "什么",
            "啥", "咋", "咋办", "想", "要", "想要", "能", "可以", "是", "在", "有", "就", "都", "也", "还", "和", "跟",
            "这", "那", "这个", "那个", "个"));
    ZH_STOPWORDS = CharArraySet.unmodifiableSet(set);
  }

  private final Map<String, FaqEntry> entries;
  private final Settings settings;
  private final Analyzer analyzer;
  private final Directory directory;
  private final DirectoryReader reader;
  private final IndexSearcher searcher;
  private final CollectionStatistics textStats;

  /** Analyzed terms of each entry's question, phrasings and keywords. */
  private final Map<String, Set<String>> vocabulary;

  private final boolean rebuilt;

  private KeywordFaqIndex(
      FaqPack pack, Settings settings, Analyzer analyzer, Directory directory, boolean rebuilt)
      throws IOException {
    this.settings = settings;
    this.analyzer = analyzer;
    this.directory = directory;
    this.rebuilt = rebuilt;
    Map<String, FaqEntry> byId = new HashMap<>();
    for (FaqEntry e : pack.entries()) {
      byId.put(e.id(), e);
    }
    this.entries = Map.copyOf(byId);
    this.reader = DirectoryReader.open(directory);
    try {
      this.searcher = new IndexSearcher(reader);
      this.searcher.setSimilarity(similarity(settings));
      this.textStats = searcher.collectionStatistics(F_TEXT);
    } catch (IOException | RuntimeException e) {
      StoredIndexes.closeQuietly(reader);
      throw e;
    }
    Map<String, Set<String>> vocab = new HashMap<>();
    for (FaqEntry e : pack.entries()) {
      Set<String> terms = new HashSet<>();
      terms.addAll(analyze(analyzer, e.question(), Integer.MAX_VALUE).keySet());
      for (String p : e.phrasings()) {
        terms.addAll(analyze(analyzer, p, Integer.MAX_VALUE).keySet());
      }
      terms.addAll(analyze(analyzer, String.join(" ", e.keywords()), Integer.MAX_VALUE).keySet());
      vocab.put(e.id(), Set.copyOf(terms));
    }
    this.vocabulary = Map.copyOf(vocab);
  }

  /** Builds the index in memory ({@link ByteBuffersDirectory}). */
  public static KeywordFaqIndex build(FaqPack pack) {
    return build(pack, Settings.defaultFor(pack));
  }

  static KeywordFaqIndex build(FaqPack pack, Settings settings) {
    Analyzer analyzer = analyzer(pack, settings);
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
    return open(pack, indexDir, Settings.defaultFor(pack));
  }

  static KeywordFaqIndex open(FaqPack pack, Path indexDir, Settings settings) {
    Path key = indexDir.toAbsolutePath().normalize();
    String fingerprint = fingerprint(pack, settings);
    Analyzer analyzer = analyzer(pack, settings);
    Directory dir = null;
    synchronized (StoredIndexes.lockFor(key)) {
      try {
        Files.createDirectories(key);
        dir = FSDirectory.open(key);
        String stored = StoredIndexes.storedFingerprint(dir, FINGERPRINT_KEY);
        boolean rebuild = !fingerprint.equals(stored);
        if (rebuild && StoredIndexes.UNREADABLE.equals(stored)) {
          StoredIndexes.deleteIndexFiles(dir);
        }
        if (rebuild) {
          log.info(
              "Building FAQ index for pack {} in {} (stored fingerprint {}, pack {})",
              pack.id(),
              key,
              stored,
              fingerprint);
          write(pack, settings, analyzer, dir, fingerprint);
        } else {
          log.debug("Reusing FAQ index for pack {} in {}", pack.id(), key);
        }
        return new KeywordFaqIndex(pack, settings, analyzer, dir, rebuild);
      } catch (IOException e) {
        StoredIndexes.closeQuietly(dir, analyzer);
        throw new UncheckedIOException(
            "Cannot open FAQ index for pack " + pack.id() + " in " + key, e);
      } catch (RuntimeException e) {
        StoredIndexes.closeQuietly(dir, analyzer);
        throw e;
      }
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
      out.add(new FaqMatch(c.faqId(), c.score(), entries.get(c.faqId())));
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
    return Optional.of(new FaqMatch(first.faqId(), first.score(), entries.get(first.faqId())));
  }

  /** Number of FAQ entries. */
  public int size() {
    return entries.size();
  }

  /** True when this instance (re)built its index, false when it reused a stored one. */
  boolean rebuilt() {
    return rebuilt;
  }

  @Override
  public void close() {
    StoredIndexes.closeQuietly(reader, directory, analyzer);
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
        double idf = idf(lt);
        termIdf.put(term.getKey(), idf);
        maxPossible += count * idf;
      }
      TopDocs top = searcher.search(q.build(), settings.hitsToCollect());
      if (top.scoreDocs.length == 0 || maxPossible <= 0) {
        return List.of();
      }
      Map<String, double[]> perFaq =
          new LinkedHashMap<>(); // id -> [sum of best hits, hits used, best hit]
      var storedFields = searcher.storedFields();
      for (ScoreDoc sd : top.scoreDocs) {
        String id = storedFields.document(sd.doc).get(F_ID);
        double[] acc = perFaq.computeIfAbsent(id, k -> new double[3]);
        if (acc[1] < settings.hitsPerFaq()) { // hits arrive best first
          acc[0] += sd.score;
          acc[1]++;
          acc[2] = Math.max(acc[2], sd.score);
        }
      }
      double norm = settings.hitsPerFaq() * maxPossible;
      List<Candidate> ranked = new ArrayList<>(perFaq.size());
      for (Map.Entry<String, double[]> e : perFaq.entrySet()) {
        double[] acc = e.getValue();
        double score = Math.min(1.0, acc[0] / norm);
        Set<String> vocab = vocabulary.getOrDefault(e.getKey(), Set.of());
        double covered = 0;
        for (Map.Entry<String, Integer> term : terms.entrySet()) {
          if (vocab.contains(term.getKey())) {
            covered += term.getValue() * termIdf.get(term.getKey());
          }
        }
        double coverage = covered / maxPossible;
        ranked.add(
            new Candidate(e.getKey(), acc[0], acc[2], maxPossible, score * coverage, coverage));
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
    return analyze(analyzer, text, MAX_QUERY_TERMS);
  }

  private static Map<String, Integer> analyze(Analyzer analyzer, String text, int maxTerms) {
    Map<String, Integer> terms = new LinkedHashMap<>();
    try (TokenStream ts = analyzer.tokenStream(F_TEXT, text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) {
        String s = term.toString();
        if (s.isEmpty()) {
          continue;
        }
        if (terms.containsKey(s)) {
          terms.merge(s, 1, Integer::sum);
        } else if (terms.size() < maxTerms) {
          terms.put(s, 1);
        }
      }
      ts.end();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot analyze query text", e);
    }
    return terms;
  }

  /**
   * BM25 IDF as Lucene computes it; terms the index has never seen get the highest IDF (docFreq 0).
   */
  private double idf(Term term) throws IOException {
    long docCount = textStats == null ? reader.numDocs() : textStats.docCount();
    int docFreq = reader.docFreq(term);
    return Math.log(1 + (docCount - docFreq + 0.5D) / (docFreq + 0.5D));
  }

  private static BM25Similarity similarity(Settings s) {
    return new BM25Similarity(s.k1(), s.b());
  }

  static Analyzer analyzer(FaqPack pack, Settings settings) {
    if ("zh".equals(pack.language())) {
      return settings.chatStopwords()
          ? new SmartChineseAnalyzer(ZH_STOPWORDS)
          : new SmartChineseAnalyzer();
    }
    return settings.chatStopwords() ? new EnglishAnalyzer(EN_STOPWORDS) : new EnglishAnalyzer();
  }

  private static void write(
      FaqPack pack, Settings settings, Analyzer analyzer, Directory dir, String fingerprint)
      throws IOException {
    IndexWriterConfig cfg =
        new IndexWriterConfig(analyzer)
            .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
            .setSimilarity(similarity(settings))
            .setCommitOnClose(false);
    try (IndexWriter w = new IndexWriter(dir, cfg)) {
      for (FaqEntry e : pack.entries()) {
        w.addDocument(doc(e.id(), "question", e.question()));
        for (String p : e.phrasings()) {
          w.addDocument(doc(e.id(), "phrasing", p));
        }
        if (!e.keywords().isEmpty()) {
          w.addDocument(doc(e.id(), "keywords", String.join(" ", e.keywords())));
        }
      }
      w.setLiveCommitData(Map.of(FINGERPRINT_KEY, fingerprint).entrySet());
      w.commit();
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
  static String fingerprint(FaqPack pack, Settings settings) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      Hasher h = new Hasher(md);
      h.add(INDEX_FORMAT)
          .add(Version.LATEST.toString())
          .add("chatStopwords=" + settings.chatStopwords());
      h.add(pack.id()).add(pack.language()).add(pack.name()).add(pack.attribution());
      h.add(Integer.toString(pack.entries().size()));
      for (FaqEntry e : pack.entries()) {
        h.add(e.id()).add(e.question()).add(e.answer()).add(e.category());
        h.add(Integer.toString(e.phrasings().size()));
        e.phrasings().forEach(h::add);
        h.add(Integer.toString(e.keywords().size()));
        e.keywords().forEach(h::add);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private record Hasher(MessageDigest md) {
    Hasher add(String s) {
      if (s == null) {
        md.update((byte) 0);
      } else {
        md.update((byte) 1);
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
      return this;
    }
  }
}
