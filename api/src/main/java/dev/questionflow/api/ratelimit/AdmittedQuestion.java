package dev.questionflow.api.ratelimit;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.questionflow.api.question.Accepted;

/**
 * The 202 body of {@code POST /api/v1/questions}: the {@link Accepted} fields plus {@code queued},
 * true when the question came in over the global access limit (accepted all the same; it waits in
 * the model lane's queue).
 */
public record AdmittedQuestion(@JsonUnwrapped Accepted accepted, boolean queued) {}
