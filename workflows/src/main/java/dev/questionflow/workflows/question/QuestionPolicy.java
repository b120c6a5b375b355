package dev.questionflow.workflows.question;

/**
 * Settings the workflow needs, decided by the API from application.yml at acceptance time and frozen into the
 * history so a replay sees the same values.
 *
 * @param humanReplyWindowSeconds how long a ticketed question waits for a staff reply before the workflow closes
 * @param promisedReplyText what the customer is told when the question is handed to a person
 */
public record QuestionPolicy(long humanReplyWindowSeconds, String promisedReplyText) {

  public static QuestionPolicy defaults() {
    return new QuestionPolicy(7 * 24 * 3600, "A member of our support team will reply within 24 hours.");
  }
}
