package dev.questionflow.workflows.generation;

import java.util.List;

/**
 * The error taxonomy of model calls: the {@code ApplicationFailure} types the generation activity
 * throws. Which of them Temporal retries is declared per activity type in application.yml ({@code
 * non-retryable-error-types}); the split below is the SPEC's (429, 5xx and connection errors are
 * worth another attempt, the rest are not) except for timeouts, which the provider may still be
 * answering. The workflow only needs to know that the stage failed; the type tells people (and
 * metrics) why.
 */
public final class ModelFailures {

  /** The configured main model. */
  public static final String PRIMARY = "primary";

  /** The model tried when the primary one failed (optional). */
  public static final String BACKUP = "backup";

  /** The model did not answer within the client's HTTP timeout: not retried (see NON_RETRYABLE). */
  public static final String TIMEOUT = "ModelTimeout";

  /**
   * The call ran out of the chain budget (counted from its start) before the model answered: it is
   * abandoned, not retried.
   */
  public static final String OVER_BUDGET = "OverChainBudget";

  // retryable

  /** HTTP 429; the failure carries the server's Retry-After as its next retry delay. */
  public static final String RATE_LIMITED = "ModelRateLimited";

  public static final String SERVER_ERROR = "ModelServerError";
  public static final String UNREACHABLE = "ModelUnreachable";

  /**
   * The call waited in the lane gate until too little of its activity attempt was left for it: not
   * called in that attempt; the next one waits in line again (a call outliving its attempt would be
   * asked twice).
   */
  public static final String ATTEMPT_ENDING = "LaneAttemptEnding";

  // not retryable
  public static final String CIRCUIT_OPEN = "CircuitOpen";

  /**
   * The call reached the model's lane gate after its question's queue deadline: not called (its
   * customer has had the prepared answer), never retried.
   */
  public static final String QUEUE_DEADLINE = "QueueDeadline";

  public static final String TOKEN_LIMIT = "TokenLimitExceeded";
  public static final String CONTENT_POLICY = "ContentPolicy";
  public static final String BAD_REQUEST = "BadRequest";
  public static final String AUTHENTICATION = "Authentication";
  public static final String EMPTY_OUTPUT = "EmptyModelOutput";
  public static final String GARBLED_OUTPUT = "GarbledModelOutput";

  /**
   * The answer repeated the system prompt's canary or a run of its rules: the question talked the
   * model out of them (an injection), so neither a retry nor the backup model is asked.
   */
  public static final String PROMPT_LEAK = "PromptLeak";

  /** The answer links to a host that is not on the allow-list (phishing, or an injection). */
  public static final String FOREIGN_LINK = "ForeignLink";

  /** The output checks' rejections of an answer the model did give. */
  public static final List<String> OUTPUT_CHECKS = List.of(PROMPT_LEAK, FOREIGN_LINK);

  public static final List<String> RETRYABLE = List.of(RATE_LIMITED, SERVER_ERROR, UNREACHABLE);

  /**
   * Not retried. {@link #TIMEOUT} among them although the SPEC calls timeouts retryable: the
   * provider may still be answering a call whose HTTP timeout passed, so another attempt would be a
   * duplicate answer (and the call's timeout is set above the model's typical latency, so there is
   * no room for a second one within the chain budget anyway).
   */
  public static final List<String> NON_RETRYABLE =
      List.of(
          TIMEOUT,
          OVER_BUDGET,
          CIRCUIT_OPEN,
          QUEUE_DEADLINE,
          TOKEN_LIMIT,
          CONTENT_POLICY,
          BAD_REQUEST,
          AUTHENTICATION,
          EMPTY_OUTPUT,
          GARBLED_OUTPUT,
          PROMPT_LEAK,
          FOREIGN_LINK);

  private ModelFailures() {}
}
