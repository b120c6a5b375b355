package dev.questionflow.workflows.question;

/** Which rung of the degradation ladder produced an answer. */
public enum AnswerLevel {
  RAG,
  LLM,
  FAQ,
  KEYWORD,
  TEMPLATE,
  TICKET,
  HUMAN;

  /** Anything but the full model answer is a degraded one and carries a notice. */
  public boolean degraded() {
    return this != RAG && this != LLM && this != HUMAN;
  }
}
