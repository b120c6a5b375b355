package dev.questionflow.workflows.callback;

/**
 * @param delivered whether the receiver took it (2xx)
 * @param deadLettered whether it failed its retries and waited for a redrive (it may have been
 *     delivered since)
 * @param rounds delivery rounds that failed after their retries (0 while the first is on)
 * @param lastError the last round's failure
 */
public record CallbackStatus(
    String webhookId, boolean delivered, boolean deadLettered, int rounds, String lastError) {}
