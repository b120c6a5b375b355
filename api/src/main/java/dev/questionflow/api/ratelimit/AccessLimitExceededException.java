package dev.questionflow.api.ratelimit;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * An access limit is exceeded: {@code 429} problem details with {@code Retry-After} (seconds).
 * Spring's {@code ResponseEntityExceptionHandler} (the app's ApiExceptionHandler) renders it with
 * its headers.
 */
public class AccessLimitExceededException extends ErrorResponseException {

  private final AccessLimiter.Kind limit;
  private final long retryAfterSeconds;

  public AccessLimitExceededException(AccessLimiter.Kind limit, long retryAfterSeconds) {
    super(HttpStatus.TOO_MANY_REQUESTS, problem(limit, retryAfterSeconds), null);
    this.limit = limit;
    this.retryAfterSeconds = retryAfterSeconds;
    getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
  }

  private static ProblemDetail problem(AccessLimiter.Kind limit, long retryAfterSeconds) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(
            HttpStatus.TOO_MANY_REQUESTS,
            "too many " + limit.what() + "; retry in " + retryAfterSeconds + " s");
    problem.setTitle("Too many requests");
    problem.setProperty("limit", limit.tag());
    problem.setProperty("retryAfterSeconds", retryAfterSeconds);
    return problem;
  }

  public AccessLimiter.Kind limit() {
    return limit;
  }

  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
