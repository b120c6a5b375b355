package dev.questionflow.activities.session;

import java.util.List;

/**
 * Per-session order and memory, shared by all instances ({@link RedisSessionStore}; {@link
 * InMemorySessionStore} without Redis). A session has:
 *
 * <ul>
 *   <li>a <b>line</b>: the workflow IDs of its questions still to finish, in the order they joined;
 *   <li>a <b>history</b>: the last {@link SessionLimits#maxTurns()} answered turns (question +
 *       answer), oldest first.
 * </ul>
 *
 * Everything of a session expires {@link SessionLimits#ttl()} after its last write (every join and
 * finish refreshes it). A question that joined more than that long ago and never finished (its
 * workflow was terminated, say) is dropped from the head of the line by the next join, so it cannot
 * block its session for ever; until then the questions behind it are held up only as long as the
 * workflow's own bounded wait for its predecessor.
 *
 * <p>Both operations are atomic and idempotent per workflow ID, so Temporal may retry them freely.
 */
public interface SessionStore {

  /**
   * Puts the workflow at the end of its session's line and returns the workflow ID directly ahead
   * of it, or null when it is first. A repeated join of the same workflow does not enqueue it again
   * and returns the predecessor recorded by its first join.
   */
  String join(String sessionId, String workflowId);

  /**
   * Records the turn in the history (none when {@code turn} is null; never twice for one workflow),
   * removes the workflow from the line and returns the workflow ID that was directly behind it
   * (null: none). A repeated finish changes nothing and returns the same ID as the first, so a
   * retry can repeat the signal that may have been lost.
   */
  String finish(String sessionId, String workflowId, Turn turn);

  /**
   * The last {@link SessionLimits#maxTurns()} turns of the session, oldest first; empty when none
   * or expired.
   */
  List<Turn> history(String sessionId);

  /** The session's line, first in line first (for tests and operators). */
  List<String> line(String sessionId);

  SessionLimits limits();

  /** A short name for logs, e.g. "redis" or "in-memory". */
  String kind();
}
