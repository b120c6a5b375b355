package dev.questionflow.activities.status;

import dev.questionflow.workflows.question.QuestionStatus;

/**
 * A question's status as its workflow's worker published it.
 *
 * @param version larger for every later change of the question (see StatusBeacon#take); 0: the
 *     API's RECEIVED at submit, which any publication replaces
 * @param publishedAtMillis when it was handed to the store (epoch ms, the publisher's clock): an
 *     event stream passes it on, so a client can tell how old the news is
 * @param fromEarlierLife kept from before the store last restarted or failed over (another Redis
 *     stored it than the one serving it): a change after it may have been lost
 */
public record PublishedStatus(
    String workflowId,
    long version,
    long publishedAtMillis,
    QuestionStatus status,
    boolean fromEarlierLife) {

  /** A status as published, or read in the life of the store that kept it. */
  public PublishedStatus(
      String workflowId, long version, long publishedAtMillis, QuestionStatus status) {
    this(workflowId, version, publishedAtMillis, status, false);
  }
}
