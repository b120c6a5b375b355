package dev.questionflow.activities.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.MovableClock;
import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.workflows.session.SessionJoin;
import dev.questionflow.workflows.session.SessionTurn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Session order and history on the in-memory store, with a recording signal sender instead of
 * Temporal.
 */
class SessionActivitiesImplTest {

  /** What would have been signalled: {@code next <- finished}. */
  record Signal(String next, String finished) {}

  static final class RecordingSignals implements SessionSignals {
    final List<Signal> sent = new CopyOnWriteArrayList<>();

    @Override
    public void turnReady(String nextWorkflowId, String finishedWorkflowId) {
      sent.add(new Signal(nextWorkflowId, finishedWorkflowId));
    }
  }

  /** A clock the test moves. */
  private final MovableClock clock = new MovableClock();

  private final RecordingSignals signals = new RecordingSignals();

  private SessionActivitiesImpl activities(InMemorySessionStore store) {
    return new SessionActivitiesImpl(store, signals, Redactor.ALL_KINDS, clock);
  }

  private static SessionTurn turn(String workflowId, String question, String answer) {
    return new SessionTurn("s1", workflowId, question, answer, answer == null ? "TICKET" : "LLM");
  }

  @Test
  void theSecondQuestionWaitsForTheFirst() {
    InMemorySessionStore store = new InMemorySessionStore(SessionLimits.DEFAULT, clock);
    SessionActivitiesImpl session = activities(store);

    assertThat(session.joinSession(new SessionJoin("s1", "A"))).isNull();
    assertThat(session.joinSession(new SessionJoin("s1", "B"))).isEqualTo("A");
    assertThat(session.joinSession(new SessionJoin("s1", "C"))).isEqualTo("B");
    assertThat(session.joinSession(new SessionJoin("other", "X")))
        .as("another session has its own line")
        .isNull();
    assertThat(store.line("s1")).containsExactly("A", "B", "C");
  }

  @Test
  void theHistoryIsWrittenWithoutPersonalData() {
    InMemorySessionStore store = new InMemorySessionStore(SessionLimits.DEFAULT, clock);
    SessionActivitiesImpl session = activities(store);
    session.joinSession(new SessionJoin("s1", "A"));

    session.finishSessionTurn(
        turn(
            "A",
            "My card 4111 1111 1111 1111 was charged twice, call me on 13812345678",
            "We will call you on 13812345678 about card 4111111111111111."));

    assertThat(store.history("s1"))
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.question())
                  .isEqualTo("My card [CARD] was charged twice, call me on [PHONE]");
              assertThat(t.answer()).isEqualTo("We will call you on [PHONE] about card [CARD].");
            });
  }

  @Test
  void aRetriedJoinReturnsTheSamePredecessorAndDoesNotEnqueueTwice() {
    InMemorySessionStore store = new InMemorySessionStore(SessionLimits.DEFAULT, clock);
    SessionActivitiesImpl session = activities(store);
    session.joinSession(new SessionJoin("s1", "A"));
    session.joinSession(new SessionJoin("s1", "B"));

    assertThat(session.joinSession(new SessionJoin("s1", "B"))).isEqualTo("A");
    assertThat(session.joinSession(new SessionJoin("s1", "A"))).isNull();
    assertThat(store.line("s1")).containsExactly("A", "B");
    // even after the predecessor finished: the first answer stands (its signal was sent to B)
    session.finishSessionTurn(turn("A", "q1", "a1"));
    assertThat(session.joinSession(new SessionJoin("s1", "B"))).isEqualTo("A");
    assertThat(store.line("s1")).containsExactly("B");
  }

  @Test
  void finishingTheFirstSignalsTheSecondAndRecordsTheTurn() {
    InMemorySessionStore store = new InMemorySessionStore(SessionLimits.DEFAULT, clock);
    SessionActivitiesImpl session = activities(store);
    session.joinSession(new SessionJoin("s1", "A"));
    session.joinSession(new SessionJoin("s1", "B"));

    session.finishSessionTurn(turn("A", "Where is my card?", "It arrives in 3-5 days."));

    assertThat(signals.sent).containsExactly(new Signal("B", "A"));
    assertThat(store.line("s1")).containsExactly("B");
    assertThat(store.history("s1"))
        .extracting(Turn::workflowId, Turn::question, Turn::answer, Turn::level)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "A", "Where is my card?", "It arrives in 3-5 days.", "LLM"));

    session.finishSessionTurn(turn("B", "q2", "a2"));
    assertThat(signals.sent).as("nobody behind B").containsExactly(new Signal("B", "A"));
    assertThat(store.line("s1")).isEmpty();
  }

  @Test
  void aRetriedFinishRepeatsTheSignalButNotTheTurn() {
    InMemorySessionStore store = new InMemorySessionStore(SessionLimits.DEFAULT, clock);
    SessionActivitiesImpl session = activities(store);
    session.joinSession(new SessionJoin("s1", "A"));
    session.joinSession(new SessionJoin("s1", "B"));

    session.finishSessionTurn(turn("A", "q1", "a1"));
    session.joinSession(new SessionJoin("s1", "C")); // joins behind B meanwhile
    session.finishSessionTurn(turn("A", "q1", "a1")); // the retry after a lost signal

    assertThat(signals.sent).containsExactly(new Signal("B", "A"), new Signal("B", "A"));
    assertThat(store.history("s1")).hasSize(1);
    assertThat(store.line("s1")).containsExactly("B", "C");
  }

  @Test
  void aQuestionHandedOverWithoutAnAnswerLeavesTheLineButNotTheHistory() {
    InMemorySessionStore store = new InMemorySessionStore(SessionLimits.DEFAULT, clock);
    SessionActivitiesImpl session = activities(store);
    session.joinSession(new SessionJoin("s1", "A"));
    session.joinSession(new SessionJoin("s1", "B"));

    session.finishSessionTurn(turn("A", "q1", null));

    assertThat(signals.sent).containsExactly(new Signal("B", "A"));
    assertThat(store.history("s1")).isEmpty();
  }

  @Test
  void aQuestionThatFinishesOutOfOrderSignalsTheOneDirectlyBehindIt() {
    InMemorySessionStore store = new InMemorySessionStore(SessionLimits.DEFAULT, clock);
    SessionActivitiesImpl session = activities(store);
    session.joinSession(new SessionJoin("s1", "A"));
    session.joinSession(new SessionJoin("s1", "B"));
    session.joinSession(new SessionJoin("s1", "C"));

    session.finishSessionTurn(turn("B", "q2", "a2")); // B gave up waiting for A

    assertThat(signals.sent).containsExactly(new Signal("C", "B"));
    assertThat(store.line("s1")).containsExactly("A", "C");
  }

  @Test
  void theHistoryKeepsTheLastTurns() {
    InMemorySessionStore store =
        new InMemorySessionStore(new SessionLimits(3, Duration.ofMinutes(30)), clock);
    SessionActivitiesImpl session = activities(store);
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      String id = "Q" + i;
      ids.add(id);
      session.joinSession(new SessionJoin("s1", id));
      session.finishSessionTurn(turn(id, "q" + i, "a" + i));
    }

    assertThat(store.history("s1")).extracting(Turn::question).containsExactly("q3", "q4", "q5");
  }

  @Test
  void aSessionIsKeptTtlAfterItsLastMessage() {
    InMemorySessionStore store =
        new InMemorySessionStore(new SessionLimits(10, Duration.ofMinutes(30)), clock);
    SessionActivitiesImpl session = activities(store);
    session.joinSession(new SessionJoin("s1", "A"));
    session.finishSessionTurn(turn("A", "q1", "a1"));

    clock.advance(Duration.ofMinutes(29));
    session.joinSession(new SessionJoin("s1", "B")); // a new message refreshes the session
    clock.advance(Duration.ofMinutes(29));
    assertThat(store.history("s1")).hasSize(1);
    assertThat(store.line("s1")).containsExactly("B");

    clock.advance(Duration.ofMinutes(2));
    assertThat(store.history("s1")).isEmpty();
    assertThat(store.line("s1")).isEmpty();
    assertThat(session.joinSession(new SessionJoin("s1", "C"))).isNull();
  }

  @Test
  void aQuestionThatNeverFinishesDoesNotBlockItsSessionForEver() {
    InMemorySessionStore store =
        new InMemorySessionStore(new SessionLimits(10, Duration.ofMinutes(30)), clock);
    SessionActivitiesImpl session = activities(store);
    session.joinSession(new SessionJoin("s1", "crashed"));
    clock.advance(Duration.ofMinutes(20));
    assertThat(session.joinSession(new SessionJoin("s1", "B"))).isEqualTo("crashed");
    clock.advance(
        Duration.ofMinutes(11)); // "crashed" joined 31 minutes ago, the session is still alive

    assertThat(session.joinSession(new SessionJoin("s1", "C"))).isEqualTo("B");
    assertThat(store.line("s1")).containsExactly("B", "C");
  }

  @Test
  void noSessionMeansNoOrder() {
    InMemorySessionStore store = new InMemorySessionStore(SessionLimits.DEFAULT, clock);
    SessionActivitiesImpl session = activities(store);
    assertThat(session.joinSession(new SessionJoin(null, "A"))).isNull();
    session.finishSessionTurn(new SessionTurn(null, "A", "q", "a", "LLM"));
    assertThat(signals.sent).isEmpty();
  }
}
