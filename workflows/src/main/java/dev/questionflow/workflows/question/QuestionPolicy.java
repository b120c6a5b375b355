package dev.questionflow.workflows.question;

import java.util.List;
import java.util.Map;

/**
 * Settings the workflow needs, decided by the API from application.yml at acceptance time and
 * frozen into the history so a replay sees the same values.
 *
 * @param humanReplyWindowSeconds how long a ticketed question waits for a staff reply before the
 *     workflow closes
 * @param promisedReplyText what the customer is told when the question is handed to a person
 * @param chainBudgetSeconds processing budget from the start of processing to an answer (SPEC:
 *     about 30 s); when it runs out the model stage is abandoned and the question is answered from
 *     the FAQ or handed over
 * @param backupModel whether a backup model is configured (tried when the primary one fails)
 * @param criticalStages stages that may not be skipped: when one of them fails the question is
 *     handed to a person instead of being answered without it ({@code intent}, {@code retrieval});
 *     other stages are skipped with a notice
 * @param deadLetter how a ticket the helpdesk did not take is redelivered
 * @param lanes task queue of each model lane ({@code primary}, {@code backup}); a model without a
 *     lane is called on the workflow's own task queue (no queue position)
 * @param maxQueueWaitSeconds how long a question may wait for its model lane (SPEC: 60 s)
 * @param laneRefreshSeconds how often a waiting question refreshes its queue position from the
 *     lane's ledger (a local activity: O(1) history events per interval); between refreshes the
 *     status query projects it
 * @param queuePatienceSeconds the longest this question may wait in a model's line before its call
 *     starts (its queue deadline is the ask plus this); 0 = no deadline of its own (questions
 *     accepted before deadlines: up to {@code maxQueueWaitSeconds})
 * @param upgradePatienceSeconds the caller asked for a fuller model answer after a quick one: how
 *     long that upgrade may wait in the line at the lowest priority; 0 = no upgrade
 */
public record QuestionPolicy(
    long humanReplyWindowSeconds,
    String promisedReplyText,
    long chainBudgetSeconds,
    boolean backupModel,
    List<String> criticalStages,
    DeadLetterPolicy deadLetter,
    Map<String, String> lanes,
    long maxQueueWaitSeconds,
    long laneRefreshSeconds,
    long queuePatienceSeconds,
    long upgradePatienceSeconds) {

  public static final long DEFAULT_CHAIN_BUDGET_SECONDS = 30;

  public QuestionPolicy {
    chainBudgetSeconds =
        chainBudgetSeconds <= 0 ? DEFAULT_CHAIN_BUDGET_SECONDS : chainBudgetSeconds;
    criticalStages = criticalStages == null ? List.of() : List.copyOf(criticalStages);
    deadLetter = deadLetter == null ? DeadLetterPolicy.defaults() : deadLetter;
    lanes = lanes == null ? Map.of() : Map.copyOf(lanes);
    maxQueueWaitSeconds = maxQueueWaitSeconds <= 0 ? 60 : maxQueueWaitSeconds;
    laneRefreshSeconds = laneRefreshSeconds <= 0 ? 10 : laneRefreshSeconds;
    queuePatienceSeconds = Math.max(0, Math.min(queuePatienceSeconds, maxQueueWaitSeconds));
    upgradePatienceSeconds = Math.max(0, upgradePatienceSeconds);
  }

  public QuestionPolicy(
      long humanReplyWindowSeconds,
      String promisedReplyText,
      long chainBudgetSeconds,
      boolean backupModel,
      List<String> criticalStages,
      DeadLetterPolicy deadLetter,
      Map<String, String> lanes,
      long maxQueueWaitSeconds,
      long laneRefreshSeconds) {
    this(
        humanReplyWindowSeconds,
        promisedReplyText,
        chainBudgetSeconds,
        backupModel,
        criticalStages,
        deadLetter,
        lanes,
        maxQueueWaitSeconds,
        laneRefreshSeconds,
        0,
        0);
  }

  /** This policy for one question: its queue patience, and its upgrade's (0: none). */
  public QuestionPolicy withPatience(long queueSeconds, long upgradeSeconds) {
    return new QuestionPolicy(
        humanReplyWindowSeconds,
        promisedReplyText,
        chainBudgetSeconds,
        backupModel,
        criticalStages,
        deadLetter,
        lanes,
        maxQueueWaitSeconds,
        laneRefreshSeconds,
        queueSeconds,
        upgradeSeconds);
  }

  public QuestionPolicy(long humanReplyWindowSeconds, String promisedReplyText) {
    this(
        humanReplyWindowSeconds,
        promisedReplyText,
        DEFAULT_CHAIN_BUDGET_SECONDS,
        false,
        List.of(),
        null);
  }

  public QuestionPolicy(
      long humanReplyWindowSeconds,
      String promisedReplyText,
      long chainBudgetSeconds,
      boolean backupModel,
      List<String> criticalStages,
      DeadLetterPolicy deadLetter) {
    this(
        humanReplyWindowSeconds,
        promisedReplyText,
        chainBudgetSeconds,
        backupModel,
        criticalStages,
        deadLetter,
        Map.of(),
        60,
        10);
  }

  public static QuestionPolicy defaults() {
    return new QuestionPolicy(
        7 * 24 * 3600, "A member of our support team will reply within 24 hours.");
  }

  /**
   * @param initialBackoffSeconds wait after the first failed redelivery; doubled after each failure
   * @param maxBackoffSeconds cap of that wait
   */
  public record DeadLetterPolicy(long initialBackoffSeconds, long maxBackoffSeconds) {
    public static DeadLetterPolicy defaults() {
      return new DeadLetterPolicy(60, 3600);
    }
  }
}
