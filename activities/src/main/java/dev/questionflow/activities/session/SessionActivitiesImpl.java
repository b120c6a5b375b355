package dev.questionflow.activities.session;

import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.workflows.session.SessionActivities;
import dev.questionflow.workflows.session.SessionJoin;
import dev.questionflow.workflows.session.SessionTurn;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the questions of one session in order: {@link #joinSession} puts a question in its
 * session's line and names the one ahead of it; {@link #finishSessionTurn} records the turn in the
 * history, leaves the line and signals the question directly behind. Both are idempotent, so
 * Temporal may retry them (a retried finish repeats the signal: the workflow treats a second {@code
 * sessionTurnReady} for the same predecessor as a no-op).
 *
 * <p>The history is written redacted ({@link Redactor}): it goes into later prompts and is shown to
 * staff, while the customer's original words stay only in the question's workflow input.
 */
public class SessionActivitiesImpl implements SessionActivities {

  private static final Logger log = LoggerFactory.getLogger(SessionActivitiesImpl.class);

  private final SessionStore store;
  private final SessionSignals signals;
  private final Clock clock;
  private final Redactor redactor;

  public SessionActivitiesImpl(SessionStore store, SessionSignals signals, Redactor redactor) {
    this(store, signals, redactor, Clock.systemUTC());
  }

  public SessionActivitiesImpl(
      SessionStore store, SessionSignals signals, Redactor redactor, Clock clock) {
    this.store = store;
    this.signals = signals;
    this.redactor = redactor;
    this.clock = clock;
  }

  @Override
  public String joinSession(SessionJoin join) {
    if (blank(join.sessionId()) || blank(join.workflowId())) {
      return null; // no session: nothing to wait for
    }
    String predecessor = store.join(join.sessionId(), join.workflowId());
    if (predecessor != null) {
      log.info("session {}: {} waits for {}", join.sessionId(), join.workflowId(), predecessor);
    }
    return predecessor;
  }

  @Override
  public void finishSessionTurn(SessionTurn turn) {
    if (blank(turn.sessionId()) || blank(turn.workflowId())) {
      return;
    }
    Turn recorded =
        turn.answer() == null
            ? null
            : new Turn(
                turn.workflowId(),
                redactor.redact(turn.question()),
                redactor.redact(turn.answer()),
                turn.level(),
                clock.instant());
    String next = store.finish(turn.sessionId(), turn.workflowId(), recorded);
    if (next != null) {
      signals.turnReady(next, turn.workflowId());
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
