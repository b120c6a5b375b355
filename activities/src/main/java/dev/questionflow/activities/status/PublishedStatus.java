package dev.questionflow.activities.status;

import dev.questionflow.workflows.question.QuestionStatus;

/**
 * A question's status as its workflow's worker published it.
 *
 * @param version larger for every later change of the question (see StatusBeacon#take); 0: the
 *     API's RECEIVED at submit, which any publication replaces
 * @param publishedAtMillis when it was handed to the store (epoch ms, the publisher's clock): an
 *     event stream passes it on, so a client can tell how old the news is
 */
public record PublishedStatus(
    String workflowId, long version, long publishedAtMillis, QuestionStatus status) {}
