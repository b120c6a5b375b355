package dev.questionflow.faq;

/**
 * A ranked FAQ candidate.
 *
 * @param faqId id of the matched entry
 * @param score confidence in [0, 1]: the aggregated BM25 score of the entry's best phrasing hits divided by the
 *              highest score the query's terms could reach (so it is comparable across queries)
 * @param entry the matched entry
 */
public record FaqMatch(String faqId, double score, FaqEntry entry) {
}
