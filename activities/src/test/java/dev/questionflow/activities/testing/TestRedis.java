package dev.questionflow.activities.testing;

import java.util.Objects;
import org.junit.jupiter.api.Assumptions;

/**
 * The Redis of the tests: {@code IT_REDIS_URL}, default {@code redis://127.0.0.1:6379}. A test that
 * finds none is skipped on a laptop, but fails in CI ({@code CI=true}), where bin/test starts one:
 * a Redis test that silently stopped running is a defect.
 */
public final class TestRedis {

  public static final String URL =
      Objects.requireNonNullElse(System.getenv("IT_REDIS_URL"), "redis://127.0.0.1:6379");

  private TestRedis() {}

  /** Call when Redis did not answer: skips the test, or fails it under CI=true. */
  public static void unavailable(Throwable why) {
    String message = "no Redis at " + URL + ": " + why;
    if ("true".equals(System.getenv("CI"))) {
      throw new AssertionError(message + " (CI=true: bin/test starts one)", why);
    }
    Assumptions.abort(message);
  }
}
