package dev.questionflow.activities.learning;

/**
 * Why a learned answer may not reach customers, or null when it may: the checks a model's answer
 * passes (links outside the allow-list, empty or garbled text, a leaked prompt), since a learned
 * entry answers every customer whose question matches it.
 */
@FunctionalInterface
public interface AnswerCheck {

  /** No check (tests of the log's mechanics). */
  AnswerCheck NONE = answer -> null;

  String rejection(String answer);
}
