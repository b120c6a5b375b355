package dev.questionflow.activities.generation;

import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.ContentFilteredException;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.exception.UnresolvedModelServerException;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.activities.resilience.UpstreamErrors.Kind;
import dev.questionflow.workflows.generation.ModelFailures;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * Maps what langchain4j 1.19's OpenAiChatModel throws (with retries off) to the taxonomy of {@link
 * ModelFailures}.
 *
 * <p>What langchain4j does first: a non-2xx answer becomes {@code HttpException(status, body)} in
 * the HTTP client; {@code ExceptionMapper} then wraps it by status: 5xx {@link
 * InternalServerException}, 401/403 {@link AuthenticationException}, 404 {@link
 * ModelNotFoundException}, 408 {@link TimeoutException}, 429 {@link RateLimitException}, other 4xx
 * {@link InvalidRequestException}; an unresolvable host becomes {@link
 * UnresolvedModelServerException}; a read timeout of the JDK client is a {@link TimeoutException};
 * other I/O errors (connection refused) arrive as a RuntimeException around the IOException; a 2xx
 * body without choices is an {@link InternalServerException}; {@link ContentFilteredException} is
 * thrown for a filtered completion. The status code and body are on the {@link HttpException} in
 * the cause chain; the headers only on our {@link UpstreamHttpException} (see {@link
 * RetryAfterHttpClient}).
 */
final class ModelErrors {

  /**
   * @param type the ApplicationFailure type ({@link ModelFailures})
   * @param kind the {@code cs_upstream_errors_total} kind
   * @param retryable whether another attempt can help (the SPEC: timeouts, 429, 5xx, connection
   *     errors)
   * @param countsAgainstHealth whether the model's circuit breaker records it as a failure
   * @param retryAfter the server's Retry-After (429 only), when it sent one
   */
  record ModelError(
      String type,
      Kind kind,
      boolean retryable,
      boolean countsAgainstHealth,
      Duration retryAfter) {}

  private ModelErrors() {}

  static ModelError classify(Throwable failure) {
    HttpException http = find(failure, HttpException.class).orElse(null);
    int status = http == null ? -1 : http.statusCode();
    String body = http == null ? "" : String.valueOf(http.getMessage()).toLowerCase(Locale.ROOT);

    // Breaker accounting: only failures that say the model is unhealthy or overloaded count
    // (timeouts, 429, 5xx,
    // unreachable, unparsable bodies). A bad request, a too-long prompt, a content-policy rejection
    // or an auth error
    // are our (or our configuration's) fault: counting them could open the breaker for a healthy
    // model and push every
    // other customer's question down the ladder. They are not retried either, so they cost one call
    // each.
    if (failure instanceof ContentFilteredException
        || find(failure, ContentFilteredException.class).isPresent()) {
      return nonRetryable(ModelFailures.CONTENT_POLICY, Kind.CONTENT_POLICY);
    }
    if (status == 429 || find(failure, RateLimitException.class).isPresent()) {
      Duration retryAfter =
          find(failure, UpstreamHttpException.class)
              .flatMap(UpstreamHttpException::retryAfter)
              .orElse(null);
      return new ModelError(ModelFailures.RATE_LIMITED, Kind.RATE_LIMITED, true, true, retryAfter);
    }
    if (status == 408
        || find(failure, TimeoutException.class).isPresent()
        || UpstreamErrors.classify(failure) == Kind.TIMEOUT) {
      return retryable(ModelFailures.TIMEOUT, Kind.TIMEOUT);
    }
    if (status >= 500
        || (http == null && find(failure, InternalServerException.class).isPresent())) {
      return retryable(ModelFailures.SERVER_ERROR, Kind.SERVER_ERROR);
    }
    if (status == 401
        || status == 403
        || find(failure, AuthenticationException.class).isPresent()) {
      return nonRetryable(ModelFailures.AUTHENTICATION, Kind.AUTHENTICATION);
    }
    if (status >= 400) {
      if (mentionsTokenLimit(body)) {
        return nonRetryable(ModelFailures.TOKEN_LIMIT, Kind.TOKEN_LIMIT);
      }
      if (mentionsContentPolicy(body)) {
        return nonRetryable(ModelFailures.CONTENT_POLICY, Kind.CONTENT_POLICY);
      }
      // includes 404 (unknown model name) and 422: a configuration or request problem
      return nonRetryable(ModelFailures.BAD_REQUEST, Kind.BAD_REQUEST);
    }
    if (find(failure, UnresolvedModelServerException.class).isPresent()
        || UpstreamErrors.classify(failure) == Kind.UNREACHABLE) {
      return retryable(ModelFailures.UNREACHABLE, Kind.UNREACHABLE);
    }
    if (isUnparsableBody(failure)) {
      // 2xx with a body that is not a chat completion: a broken gateway or model server
      return new ModelError(ModelFailures.SERVER_ERROR, Kind.MALFORMED_RESPONSE, true, true, null);
    }
    if (find(failure, java.io.IOException.class).isPresent()) {
      // connection reset, closed mid-response...: transport trouble on the model's side
      return retryable(ModelFailures.UNREACHABLE, Kind.UNREACHABLE);
    }
    // Unknown: treat it as a server-side problem (retryable, counted) rather than hide an outage as
    // "our fault".
    return new ModelError(ModelFailures.SERVER_ERROR, Kind.OTHER, true, true, null);
  }

  private static ModelError retryable(String type, Kind kind) {
    return new ModelError(type, kind, true, true, null);
  }

  private static ModelError nonRetryable(String type, Kind kind) {
    return new ModelError(type, kind, false, false, null);
  }

  /**
   * OpenAI: context_length_exceeded / "maximum context length"; vLLM: "... tokens ... maximum";
   * DashScope: "Range of input length".
   */
  static boolean mentionsTokenLimit(String body) {
    return body.contains("context_length_exceeded")
        || body.contains("context length")
        || body.contains("context window")
        || body.contains("maximum context")
        || body.contains("too many tokens")
        || body.contains("token limit")
        || body.contains("max_tokens")
        || body.contains("range of input length")
        || body.contains("input length")
        || (body.contains("tokens") && body.contains("maximum"));
  }

  /**
   * OpenAI/Azure: content_filter / "content management policy" / content_policy_violation;
   * DashScope: data_inspection_failed.
   */
  static boolean mentionsContentPolicy(String body) {
    return body.contains("content_filter")
        || body.contains("content_policy")
        || body.contains("content policy")
        || body.contains("content management policy")
        || body.contains("data_inspection_failed")
        || body.contains("inappropriate content")
        || body.contains("safety system");
  }

  private static boolean isUnparsableBody(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String name = t.getClass().getName();
      if (name.startsWith("com.fasterxml.jackson.") || name.startsWith("tools.jackson.")) {
        return true;
      }
    }
    return false;
  }

  static <T extends Throwable> Optional<T> find(Throwable failure, Class<T> type) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return Optional.of(type.cast(t));
      }
    }
    return Optional.empty();
  }
}
