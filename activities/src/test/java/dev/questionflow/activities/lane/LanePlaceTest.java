package dev.questionflow.activities.lane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.questionflow.activities.MovableClock;
import dev.questionflow.workflows.lane.LaneEntry;
import dev.questionflow.workflows.lane.LanePlace;
import dev.questionflow.workflows.lane.Priorities;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where a question with an answer below the model joins a lane of 10 calls/s: a front line of at
 * most 1 s, the standing line behind it with what the front lines leave of the rate, or nowhere.
 */
class LanePlaceTest {

  private static final String LANE = "model-primary";
  private static final long PATIENCE = 10_000;

  private final MovableClock clock = new MovableClock();
  private final InMemoryLaneLedger ledger = new InMemoryLaneLedger(clock);
  private final LaneLedgerActivities lanes =
      new LaneLedgerActivities(ledger, Map.of(LANE, 10.0), Map.of(), Duration.ofSeconds(1), clock);
  private int asked;

  /** {@code count} standard questions join the front line, {@code apartMillis} apart. */
  private void frontLineOf(int count, long apartMillis) {
    for (int i = 0; i < count; i++) {
      ledger.enter(LANE, "q-" + asked++, Priorities.FRONT_KEY);
      clock.advance(apartMillis);
    }
  }

  private LanePlace place(int priorityKey, long patienceMillis) {
    return place(priorityKey, patienceMillis, 200);
  }

  private LanePlace place(int priorityKey, long patienceMillis, long waitedMillis) {
    return lanes.place(
        new LaneEntry(LANE, "new-" + asked++, priorityKey), patienceMillis, waitedMillis);
  }

  @Test
  void aShortFrontLineIsJoined() {
    frontLineOf(5, 0);

    LanePlace place = place(Priorities.FRONT_KEY, PATIENCE);

    assertThat(place.priorityKey()).isEqualTo(Priorities.FRONT_KEY);
    assertThat(place.waitSeconds()).isCloseTo(0.5, within(0.01));
  }

  @Test
  void aQuestionThatWaitedLongerThanTheFrontLineLeavesItToNewerOnes() {
    frontLineOf(2, 0);

    LanePlace late = place(Priorities.FRONT_KEY, PATIENCE, 1_500); // a burst's backlog

    assertThat(late.priorityKey()).isEqualTo(Priorities.STANDING_KEY);
    assertThat(place(Priorities.FRONT_KEY, PATIENCE).priorityKey()).isEqualTo(Priorities.FRONT_KEY);
  }

  @Test
  void aFrontLineWaitOfZeroPutsEveryStandardQuestionInOneFirstComeLine() {
    var oneLine =
        new LaneLedgerActivities(ledger, Map.of(LANE, 10.0), Map.of(), Duration.ZERO, clock);

    LanePlace first =
        oneLine.place(new LaneEntry(LANE, "first", Priorities.FRONT_KEY), PATIENCE, 0);
    ledger.enter(LANE, "first", first.priorityKey());
    LanePlace second =
        oneLine.place(new LaneEntry(LANE, "second", Priorities.FRONT_KEY), PATIENCE, 0);

    assertThat(first.priorityKey()).isEqualTo(Priorities.STANDING_KEY);
    assertThat(first.waitSeconds()).isCloseTo(0.0, within(0.01));
    assertThat(second.priorityKey()).isEqualTo(Priorities.STANDING_KEY);
    assertThat(second.waitSeconds()).as("behind the first").isCloseTo(0.1, within(0.01));
  }

  @Test
  void questionsAdmittedAtTheSameMomentGetNoMoreOfTheFrontLineThanItHolds() {
    int front = 0;
    for (int i = 0; i < 15; i++) { // none has entered the line yet when the next is placed
      front += place(Priorities.FRONT_KEY, PATIENCE).priorityKey() == Priorities.FRONT_KEY ? 1 : 0;
    }

    assertThat(front).as("1 s at 10 calls/s").isEqualTo(10);
    for (int i = 0; i < 10; i++) { // the refused ones stand, as they are placed
      LanePlace standing = place(Priorities.FRONT_KEY, PATIENCE);
      assertThat(standing.priorityKey()).isEqualTo(Priorities.STANDING_KEY);
      ledger.enter(LANE, "standing-" + i, Priorities.STANDING_KEY);
    }
    assertThat(place(Priorities.FRONT_KEY, PATIENCE).joins())
        .as("no ticket, and a front line's worth already standing: answered at once")
        .isFalse();
    clock.advance(500);
    assertThat(place(Priorities.FRONT_KEY, PATIENCE).priorityKey())
        .as("refilled at the lane's rate")
        .isEqualTo(Priorities.FRONT_KEY);
  }

  @Test
  void behindALongFrontLineWhoseArrivalsStoppedAQuestionStandsInTheStandingLine() {
    frontLineOf(12, 0); // a burst: 1.2 s of front line
    clock.advance(6_000); // its arrivals are older than the window; the line is still there

    LanePlace place = place(Priorities.FRONT_KEY, PATIENCE);

    assertThat(place.priorityKey()).isEqualTo(Priorities.STANDING_KEY);
    assertThat(place.waitSeconds()).isCloseTo(1.2, within(0.01));
  }

  @Test
  void theStandingLineGetsWhatTheFrontLinesLeaveOfTheRate() {
    frontLineOf(15, 400); // 2.5 arrivals a second for 6 s: 7.5 of the 10 calls/s are left
    frontLineOf(12, 0);

    LanePlace place = place(Priorities.FRONT_KEY, PATIENCE);

    assertThat(place.priorityKey()).isEqualTo(Priorities.STANDING_KEY);
    assertThat(place.waitSeconds()).as("27 ahead at 7.5/s").isCloseTo(27 / 7.5, within(0.5));
  }

  @Test
  void underASustainedOverloadTheStandingLineHasNoTurnAndTheQuestionIsAnsweredAtOnce() {
    frontLineOf(66, 90); // 11 arrivals a second: the front lines take the whole rate

    LanePlace place = place(Priorities.FRONT_KEY, PATIENCE);

    assertThat(place.joins()).isFalse();
    assertThat(place.waitSeconds()).isNegative();
  }

  @Test
  void aStandingWaitBeyondThePatienceIsNotJoined() {
    frontLineOf(12, 0);
    clock.advance(6_000);

    LanePlace place = place(Priorities.FRONT_KEY, 1_000); // 0.8 s fit, 1.2 s projected

    assertThat(place.joins()).isFalse();
    assertThat(place.waitSeconds()).isCloseTo(1.2, within(0.01));
  }

  @Test
  void aVipKeepsItsKeyAheadOfEveryStandardLine() {
    frontLineOf(66, 90);

    LanePlace place = place(Priorities.toTemporalKey(Priorities.VIP), PATIENCE);

    assertThat(place.priorityKey()).isEqualTo(1);
    assertThat(place.waitSeconds()).isZero();
  }

  @Test
  void standingArrivalsDoNotCountAsTheFrontLines() {
    for (int i = 0; i < 66; i++) {
      ledger.enter(LANE, "low-" + i, Priorities.STANDING_KEY);
      clock.advance(90);
    }

    assertThat(ledger.frontArrivalsPerSecond(LANE, 5)).containsOnly(0L);
    assertThat(place(Priorities.FRONT_KEY, PATIENCE).priorityKey())
        .as("the front line is empty")
        .isEqualTo(Priorities.FRONT_KEY);
  }
}
