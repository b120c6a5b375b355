package dev.questionflow.api.ratelimit;

import java.util.List;

/**
 * A request let through the access limits.
 *
 * @param queued the global limit was exceeded: the question is accepted all the same and waits in
 *     the model lane's queue
 * @param taken the tokens taken, given back by {@link AccessLimiter#refund} when the request
 *     started nothing
 */
public record Admission(boolean queued, List<Token> taken) {

  static final Admission UNLIMITED = new Admission(false, List.of());

  /** One token taken from the bucket {@code key}, in Redis ({@code remote}) or in this process. */
  record Token(AccessLimiter.Kind kind, String key, boolean remote) {}
}
