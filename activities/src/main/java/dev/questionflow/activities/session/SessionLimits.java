package dev.questionflow.activities.session;

import java.time.Duration;

/**
 * How much of a session is kept ({@code cs.sessions} in application.yml).
 *
 * @param maxTurns the conversation history keeps the last this many turns (SPEC: 10)
 * @param ttl everything of a session (line and history) is kept this long after its last write
 *     (SPEC: 30 minutes); a question still in line after this long since it joined is considered
 *     abandoned and skipped
 */
public record SessionLimits(int maxTurns, Duration ttl) {

  /** The SPEC's numbers: last 10 turns, kept 30 minutes after the last message. */
  public static final SessionLimits DEFAULT = new SessionLimits(10, Duration.ofMinutes(30));

  public SessionLimits {
    if (maxTurns < 0) {
      throw new IllegalArgumentException("cs.sessions.max-turns must be >= 0, was " + maxTurns);
    }
    if (ttl == null || ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("cs.sessions.ttl must be positive, was " + ttl);
    }
  }

  /** Null values take the defaults. */
  public static SessionLimits of(Integer maxTurns, Duration ttl) {
    return new SessionLimits(
        maxTurns != null ? maxTurns : DEFAULT.maxTurns(), ttl != null ? ttl : DEFAULT.ttl());
  }
}
