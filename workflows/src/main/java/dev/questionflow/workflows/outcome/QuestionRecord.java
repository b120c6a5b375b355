package dev.questionflow.workflows.outcome;

import java.util.List;

/**
 * One finished question for analytics, redacted: never the customer's text nor the answer's.
 *
 * @param caller the authenticated caller that asked (null: unknown)
 * @param tier STANDARD or VIP
 * @param stage how it ended (ANSWERED, TICKETED)
 * @param level the final answer's level (RAG, LLM, FAQ, KEYWORD, TEMPLATE, TICKET, HUMAN)
 * @param reasons why the answer was degraded or shed, in order (empty: a full answer)
 * @param firstAnswerMillis from acceptance to the customer's first answer (null: unknown)
 * @param model the model that answered last (null: no model answered)
 * @param promptTokens prompt tokens over every model answer of the question (null: none reported)
 * @param completionTokens completion tokens likewise
 * @param cost what the model answers' tokens cost at the prices configured when each call ran
 *     (cs.outcomes.prices, per million tokens; 0 for a model without prices, null: no tokens)
 */
public record QuestionRecord(
    String workflowId,
    String caller,
    String tier,
    String intent,
    String stage,
    String level,
    String faqId,
    List<String> reasons,
    Long firstAnswerMillis,
    String model,
    Integer promptTokens,
    Integer completionTokens,
    Double cost,
    long finishedAtEpochMillis) {

  public QuestionRecord {
    reasons = reasons == null ? List.of() : List.copyOf(reasons);
    // 12 significant digits: sums of prices in binary floating point would read
    // 4.709999999999999E-5
    cost =
        cost == null
            ? null
            : new java.math.BigDecimal(cost).round(new java.math.MathContext(12)).doubleValue();
  }
}
