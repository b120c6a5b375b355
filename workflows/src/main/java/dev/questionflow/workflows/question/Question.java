package dev.questionflow.workflows.question;

/**
 * A customer question as accepted by the API. Immutable and part of the workflow history, so it carries the
 * per-question policy too: workflow code must not read configuration.
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
    QuestionPolicy policy) {

  public enum Tier {
    STANDARD,
    VIP
  }
}
