package dev.questionflow.workflows.callback;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Delivers an answer callback: a signed POST (Standard Webhooks) to the caller's URL. Runs on the
 * tickets queue's worker, for {@link AnswerCallbackWorkflow}.
 */
@ActivityInterface
public interface CallbackActivities {

  /** Non-retryable failure type: the URL or caller is not (or no longer) allowed, or no secret. */
  String REFUSED = "CallbackRefused";

  /**
   * One attempt; throws on a non-2xx answer (redirects are not followed) or an unreachable
   * receiver, so the stage's retry policy ({@code cs.activities.callback-delivery}) applies, and
   * with {@link #REFUSED} when no attempt can succeed.
   */
  @ActivityMethod
  void deliverCallback(CallbackMessage message);
}
