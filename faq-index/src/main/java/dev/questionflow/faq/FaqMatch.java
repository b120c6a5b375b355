package dev.questionflow.faq;

/**
 * A ranked FAQ candidate.
 *
 * @param faqId id of the matched entry
 * @param score confidence in [0, 1]. {@link KeywordFaqIndex}: the aggregated BM25 score of the
 *     entry's best phrasing hits divided by the highest score the query's terms could reach (so it
 *     is comparable across queries); {@link SemanticFaqIndex}: the weighted fusion of kNN vote,
 *     BM25 share and classifier probability
 * @param entry the matched entry
 */
public record FaqMatch(String faqId, double score, FaqEntry entry) {}
