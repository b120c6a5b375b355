package dev.questionflow.workflows.callback;

/**
 * Where a question's answer callbacks go, decided by the API when it accepts the question (the
 * caller's registered URL, or the request's {@code callbackUrl} on one of the caller's registered
 * hosts). Part of the question's input, so workflow code reads no configuration; the signing secret
 * is not here: the delivering activity looks it up by caller name, so it never enters a history.
 *
 * @param url the https (or loopback http) URL the callbacks are POSTed to
 * @param deadLetterHoldSeconds how long an undelivered callback waits for a redrive after its last
 *     attempt (cs.callbacks.dead-letter-hold)
 */
public record CallbackTarget(String url, long deadLetterHoldSeconds) {}
