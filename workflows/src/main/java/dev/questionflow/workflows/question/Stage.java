package dev.questionflow.workflows.question;

public enum Stage {
  RECEIVED,
  WAITING_IN_QUEUE,
  PROCESSING,
  ANSWERED,
  TICKETED,
  FAILED
}
