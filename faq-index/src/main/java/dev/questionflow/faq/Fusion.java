package dev.questionflow.faq;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.search.ScoreDoc;

/**
 * The semantic level's arithmetic: each signal (classifier, kNN vote, BM25) as shares over the FAQ
 * entries, and their weighted sum (see {@link SemanticFaqIndex}). Pure functions of arrays.
 */
final class Fusion {

  /** A ranked candidate with the figures behind its fused score. */
  record Candidate(String faqId, double score, double classifier, double knn, double keyword) {}

  /** The ranking of one question plus the nearest phrasing's similarity. */
  record Ranking(List<Candidate> candidates, double maxSimilarity, double keywordTop) {
    static final Ranking EMPTY = new Ranking(List.of(), 0, 0);
  }

  /** The kNN vote's share per entry, and the nearest phrasing's cosine similarity. */
  record Vote(double[] shares, double maxSimilarity) {}

  private Fusion() {}

  /**
   * Each hit votes {@code exp((cos - 1) / T)} for its entry; the votes are normalised to sum 1.
   *
   * @param docClass the entry (class) of each document, or -1 for the classifier's document
   */
  static Vote knnVote(ScoreDoc[] hits, int[] docClass, int classes, double temperature) {
    double[] shares = new double[classes];
    double maxSim = 0;
    double sum = 0;
    boolean first = true;
    for (ScoreDoc sd : hits) {
      int c = docClass[sd.doc];
      if (c < 0) {
        continue;
      }
      double cos = 2.0 * sd.score - 1.0; // DOT_PRODUCT score = (1 + cos) / 2
      maxSim = first ? cos : Math.max(maxSim, cos);
      first = false;
      double v = Math.exp((cos - 1.0) / temperature);
      shares[c] += v;
      sum += v;
    }
    if (sum > 0) {
      for (int c = 0; c < classes; c++) {
        shares[c] /= sum;
      }
    }
    return new Vote(shares, maxSim);
  }

  /** The BM25 scores of the keyword hits as shares per entry (summing to 1 when there are any). */
  static double[] keywordShares(List<FaqMatch> hits, Map<String, Integer> classIndex, int classes) {
    double[] shares = new double[classes];
    double sum = hits.stream().mapToDouble(FaqMatch::score).sum();
    if (sum > 0) {
      for (FaqMatch m : hits) {
        Integer c = classIndex.get(m.faqId());
        if (c != null) {
          shares[c] += m.score() / sum;
        }
      }
    }
    return shares;
  }

  /** The {@code topK} entries by weighted score (clamped to [0, 1]), best first, ties by id. */
  static List<Candidate> fuse(
      String[] classIds, double[] pClf, double[] pKnn, double[] pKw, SemanticSettings s, int topK) {
    double wSum = s.wClassifier() + s.wKnn() + s.wKeyword();
    List<Candidate> all = new ArrayList<>(classIds.length);
    for (int c = 0; c < classIds.length; c++) {
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
    return List.copyOf(all.subList(0, Math.min(topK, all.size())));
  }
}
