package dev.questionflow.workflows;

import io.temporal.common.SearchAttributeKey;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * Custom search attributes on every question workflow, for finding conversations in the Temporal
 * Web UI. IDs and states only: never message text or other personal data.
 */
public final class SearchAttributes {
  public static final SearchAttributeKey<String> CUSTOMER_ID =
      SearchAttributeKey.forKeyword("CustomerId");
  public static final SearchAttributeKey<String> SESSION_ID =
      SearchAttributeKey.forKeyword("SessionId");
  public static final SearchAttributeKey<String> STAGE = SearchAttributeKey.forKeyword("Stage");
  public static final SearchAttributeKey<String> ANSWER_LEVEL =
      SearchAttributeKey.forKeyword("AnswerLevel");
  public static final SearchAttributeKey<String> INTENT = SearchAttributeKey.forKeyword("Intent");
  public static final SearchAttributeKey<Long> PRIORITY = SearchAttributeKey.forLong("Priority");
  public static final SearchAttributeKey<OffsetDateTime> WAITING_SINCE =
      SearchAttributeKey.forOffsetDateTime("WaitingSince");

  /** When the customer got its first answer (a quick one may be upgraded later). */
  public static final SearchAttributeKey<OffsetDateTime> FIRST_ANSWER_AT =
      SearchAttributeKey.forOffsetDateTime("FirstAnswerAt");

  /** The level of the first answer; {@link #ANSWER_LEVEL} is the latest answer's. */
  public static final SearchAttributeKey<String> FIRST_ANSWER_LEVEL =
      SearchAttributeKey.forKeyword("FirstAnswerLevel");

  /**
   * The workflow ID's format, set at start ({@code "2"}: 64-bit owner tag); questions started
   * before it existed have none, which tells the API whether old-format IDs may still be around.
   */
  public static final SearchAttributeKey<String> ID_FORMAT =
      SearchAttributeKey.forKeyword("QuestionIdFormat");

  public static final List<SearchAttributeKey<?>> ALL =
      List.of(
          CUSTOMER_ID,
          SESSION_ID,
          STAGE,
          ANSWER_LEVEL,
          INTENT,
          PRIORITY,
          WAITING_SINCE,
          FIRST_ANSWER_AT,
          FIRST_ANSWER_LEVEL,
          ID_FORMAT);

  private SearchAttributes() {}
}
