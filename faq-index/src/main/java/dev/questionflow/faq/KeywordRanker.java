package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;

/**
 * The keyword level's ranking of a question over a {@link KeywordView}: BM25 hits aggregated per
 * entry, normalised by the query's highest possible score and weighted by the entry's coverage of
 * the query terms (see {@link KeywordFaqIndex}).
 */
final class KeywordRanker {

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

  private final Analyzer analyzer;
  private final KeywordSettings settings;

  KeywordRanker(Analyzer analyzer, KeywordSettings settings) {
    this.analyzer = analyzer;
    this.settings = settings;
  }

  /** The {@code topK} best entries, best first; empty for blank or stop-word-only text. */
  List<Candidate> rank(KeywordView v, String text, int topK) {
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
        Term lt = new Term(KeywordIndexWriter.F_TEXT, term.getKey());
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
  private static double idf(KeywordView v, Term term) throws IOException {
    long docCount = v.textStats() == null ? v.reader().numDocs() : v.textStats().docCount();
    int docFreq = v.reader().docFreq(term);
    return Math.log(1 + (docCount - docFreq + 0.5D) / (docFreq + 0.5D));
  }
}
