package dev.questionflow.activities.resilience;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * Counts failed calls to upstream dependencies by kind: Micrometer counter {@code
 * cs.upstream.errors} (Prometheus: {@code cs_upstream_errors_total{dependency, kind}}).
 * Thread-safe.
 *
 * <pre>{@code
 * errors.record(Dependency.REDIS, UpstreamErrors.Kind.TIMEOUT);   // when the kind is known
 * errors.record(Dependency.HELPDESK, exception);                  // classified from the exception (cause chain)
 * }</pre>
 */
public final class UpstreamErrors {

  public static final String METRIC = "cs.upstream.errors";

  /** Why a call to a dependency failed; {@link #tag()} is the {@code kind} tag. */
  public enum Kind {
    TIMEOUT,
    RATE_LIMITED,
    SERVER_ERROR,
    UNREACHABLE,
    BAD_REQUEST,
    TOKEN_LIMIT,
    CONTENT_POLICY,
    AUTHENTICATION,
    EMPTY_OUTPUT,
    GARBLED_OUTPUT,
    /** the answer repeated the system prompt (an injection got through to the model) */
    PROMPT_LEAK,
    /** the answer linked to a host that is not allowed */
    FOREIGN_LINK,
    /** the upstream answered 2xx with a body we could not parse */
    MALFORMED_RESPONSE,
    /** the breaker was open: no call was made */
    CIRCUIT_OPEN,
    OTHER;

    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final MeterRegistry meters;

  public UpstreamErrors(MeterRegistry meters) {
    this.meters = meters == null ? new SimpleMeterRegistry() : meters;
  }

  public void record(Dependency dependency, Kind kind) {
    counter(dependency, kind).increment();
  }

  /** Classifies {@code failure} with {@link #classify} and records it; returns the kind. */
  public Kind record(Dependency dependency, Throwable failure) {
    Kind kind = classify(failure);
    record(dependency, kind);
    return kind;
  }

  /** How many errors of this kind were recorded (tests, diagnostics). */
  public double count(Dependency dependency, Kind kind) {
    return counter(dependency, kind).count();
  }

  private Counter counter(Dependency dependency, Kind kind) {
    return Counter.builder(METRIC)
        .description("failed calls to upstream dependencies, by dependency and kind")
        .tag("dependency", dependency.id())
        .tag("kind", kind.tag())
        .register(meters);
  }

  /**
   * Transport-level classification for any client (HTTP, Redis, ...), looking through the cause
   * chain: breaker open, timeouts (JDK, socket, and any exception whose class name contains
   * "Timeout", e.g. Lettuce's RedisCommandTimeoutException), connection failures, else {@link
   * Kind#OTHER}. HTTP status codes are the caller's to map (only the caller knows its client's
   * exception types).
   */
  public static Kind classify(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof CallNotPermittedException) {
        return Kind.CIRCUIT_OPEN;
      }
      if (t instanceof HttpTimeoutException
          || t instanceof SocketTimeoutException
          || t instanceof TimeoutException
          || t.getClass().getSimpleName().contains("Timeout")) {
        return Kind.TIMEOUT;
      }
      if (t instanceof ConnectException
          || t instanceof NoRouteToHostException
          || t instanceof UnknownHostException
          || t instanceof UnresolvedAddressException
          || t.getClass().getSimpleName().contains("ConnectionException")) {
        return Kind.UNREACHABLE;
      }
    }
    return Kind.OTHER;
  }
}
