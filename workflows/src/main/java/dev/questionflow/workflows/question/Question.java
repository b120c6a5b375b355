package dev.questionflow.workflows.question;

import dev.questionflow.workflows.callback.CallbackTarget;

/**
 * A customer question as accepted by the API. Immutable and part of the workflow history, so it
 * carries the per-question policy too: workflow code must not read configuration.
 *
 * @param caller the authenticated caller that asked (a chat back end's name, {@code web} for the
 *     public page, {@code local} in trial mode); null in questions accepted before callers were
 *     authenticated
 * @param callback where this question's answer callbacks go (null: none, as in every question
 *     accepted before callbacks)
 */
public record Question(
    String sessionId,
    String userId,
    String clientMsgId,
    String text,
    Tier tier,
    String channel,
    String requestId,
    int priority,
    QuestionPolicy policy,
    String caller,
    CallbackTarget callback) {

  /** A question without answer callbacks. */
  public Question(
      String sessionId,
      String userId,
      String clientMsgId,
      String text,
      Tier tier,
      String channel,
      String requestId,
      int priority,
      QuestionPolicy policy,
      String caller) {
    this(
        sessionId,
        userId,
        clientMsgId,
        text,
        tier,
        channel,
        requestId,
        priority,
        policy,
        caller,
        null);
  }

  public enum Tier {
    STANDARD,
    VIP
  }
}
