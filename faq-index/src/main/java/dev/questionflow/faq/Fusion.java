package dev.questionflow.faq;

import java.util.ArrayList;
import java.util.Arrays;
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

  /**
   * The ranking of one question plus the nearest phrasing's similarity and the nearest out-of-scope
   * example's ({@link Nearest#NONE} when none was among the nearest documents).
   */
  record Ranking(
      List<Candidate> candidates,
      double maxSimilarity,
      double keywordTop,
      double outOfScopeSimilarity) {
    static final Ranking EMPTY = new Ranking(List.of(), 0, 0, Nearest.NONE);
  }

  /**
   * A question's nearest phrasings, nearest first: each one's entry (class) and cosine similarity;
   * and the cosine similarity of the nearest out-of-scope example among the same documents.
   */
  record Nearest(int[] entry, double[] cos, double outOfScope) {

    /** The similarity of an out-of-scope example that was not found: below every cosine. */
    static final double NONE = -1;

    /**
     * @param docClass the entry (class) of each document; {@link #OUT_OF_SCOPE} for the pack's
     *     out-of-scope examples (and the classifier's document, which has no vector to be found)
     */
    static Nearest of(ScoreDoc[] hits, int[] docClass) {
      int[] entry = new int[hits.length];
      double[] cos = new double[hits.length];
      double outOfScope = NONE;
      int n = 0;
      for (ScoreDoc sd : hits) {
        double similarity = 2.0 * sd.score - 1.0; // DOT_PRODUCT score = (1 + cos) / 2
        if (docClass[sd.doc] >= 0) {
          entry[n] = docClass[sd.doc];
          cos[n++] = similarity;
        } else {
          outOfScope = Math.max(outOfScope, similarity);
        }
      }
      return new Nearest(Arrays.copyOf(entry, n), Arrays.copyOf(cos, n), outOfScope);
    }

    /** The nearest phrasing's cosine similarity (0 when there is none). */
    double maxSimilarity() {
      return cos.length == 0 ? 0 : Arrays.stream(cos).max().getAsDouble();
    }
  }

  /** The class of a document that is no entry's: an out-of-scope example. */
  static final int OUT_OF_SCOPE = -1;

  private Fusion() {}

  /**
   * The first {@code k} nearest phrasings each vote {@code exp((cos - 1) / T)} for their entry; the
   * votes are normalised to sum 1.
   */
  static double[] knnVote(Nearest nearest, int k, int classes, double temperature) {
    double[] shares = new double[classes];
    double sum = 0;
    for (int i = 0; i < Math.min(k, nearest.entry().length); i++) {
      double v = Math.exp((nearest.cos()[i] - 1.0) / temperature);
      shares[nearest.entry()[i]] += v;
      sum += v;
    }
    if (sum > 0) {
      for (int c = 0; c < classes; c++) {
        shares[c] /= sum;
      }
    }
    return shares;
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

  /** Each entry's weighted score, clamped to [0, 1]. */
  static double[] scores(double[] pClf, double[] pKnn, double[] pKw, SemanticSettings s) {
    double wSum = s.wClassifier() + s.wKnn() + s.wKeyword();
    double[] scores = new double[pClf.length];
    for (int c = 0; c < scores.length; c++) {
      double score =
          (s.wClassifier() * pClf[c] + s.wKnn() * pKnn[c] + s.wKeyword() * pKw[c]) / wSum;
      scores[c] = Math.min(1.0, Math.max(0.0, score));
    }
    return scores;
  }

  /** The {@code topK} entries by weighted score ({@link #scores}), best first, ties by id. */
  static List<Candidate> fuse(
      String[] classIds, double[] pClf, double[] pKnn, double[] pKw, SemanticSettings s, int topK) {
    double[] scores = scores(pClf, pKnn, pKw, s);
    List<Candidate> all = new ArrayList<>(classIds.length);
    for (int c = 0; c < classIds.length; c++) {
      all.add(new Candidate(classIds[c], scores[c], pClf[c], pKnn[c], pKw[c]));
    }
    all.sort(
        (a, b) ->
            a.score() != b.score()
                ? Double.compare(b.score(), a.score())
                : a.faqId().compareTo(b.faqId()));
    return List.copyOf(all.subList(0, Math.min(topK, all.size())));
  }
}
