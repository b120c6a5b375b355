package dev.questionflow.workflows.question;

import io.temporal.workflow.Workflow;

/**
 * A question's deadline in the models' lines: no model call of it starts later (when its customer
 * began waiting, plus its patience). Part of the workflow's state, decided from its input, so it
 * survives any instance.
 *
 * @param mayShed whether the question may be answered below the model at admission (it has a
 *     prepared answer); one without waits for the model until its deadline, then is handed over
 * @param tier {@code standard}, {@code vip} or {@code upgrade}, for the metrics
 */
record QueueDeadline(long atEpochMillis, boolean mayShed, String tier) {

  private static final String UPGRADE = "upgrade";

  /**
   * Version 1: the patience counts from when the customer began waiting ({@link
   * ChainBudget#waitingSince}), not from the model step: a question that waited for a busy worker
   * (the CPU behind a burst) has that much less of it left. Before: from the model step.
   */
  static final String PATIENCE_FROM_ASKING = "patience-from-asking";

  /**
   * The question's queue patience (questions without one: the longest queue wait) from {@code
   * waitingSince}.
   */
  static QueueDeadline of(QuestionPolicy policy, boolean mayShed, String tier, long waitingSince) {
    long patience =
        policy.queuePatienceSeconds() > 0
            ? policy.queuePatienceSeconds()
            : policy.maxQueueWaitSeconds();
    long from =
        Workflow.getVersion(PATIENCE_FROM_ASKING, Workflow.DEFAULT_VERSION, 1) == 1
            ? waitingSince
            : Workflow.currentTimeMillis();
    return new QueueDeadline(from + patience * 1000, mayShed, tier);
  }

  /** An upgrade's: from now, the upgrade's patience; shed first. */
  static QueueDeadline upgrade(QuestionPolicy policy) {
    return new QueueDeadline(
        Workflow.currentTimeMillis() + policy.upgradePatienceSeconds() * 1000, true, UPGRADE);
  }

  /** An upgrade's: its question has an answer, so its wait is not shown as the question's. */
  boolean upgrade() {
    return UPGRADE.equals(tier);
  }

  static String tierOf(Question question) {
    return question.tier() == Question.Tier.VIP ? "vip" : "standard";
  }
}
