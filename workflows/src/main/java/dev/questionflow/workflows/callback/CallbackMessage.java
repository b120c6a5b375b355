package dev.questionflow.workflows.callback;

import dev.questionflow.workflows.question.QuestionStatus;

/**
 * One callback as the question's workflow hands it to its {@link AnswerCallbackWorkflow}. It holds
 * the answer text (encrypted in the history by the payload codec), never the signing secret.
 *
 * @param webhookId the Standard Webhooks {@code webhook-id}: the same for every attempt and redrive
 *     of this callback, so a receiver that remembers it processes it once
 * @param caller whose secret signs it and whose registered hosts it may go to
 * @param type the event ({@link CallbackEvent#type()})
 * @param eventAtEpochMillis when it happened (the body's {@code timestamp}; each attempt's {@code
 *     webhook-timestamp} is the attempt's own time)
 * @param status the question's status as GET /api/v1/questions/{id} returns it at that moment
 */
public record CallbackMessage(
    String webhookId,
    String caller,
    CallbackTarget target,
    String type,
    long eventAtEpochMillis,
    QuestionStatus status) {}
