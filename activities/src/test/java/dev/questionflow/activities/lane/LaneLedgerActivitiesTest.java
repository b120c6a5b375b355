package dev.questionflow.activities.lane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.questionflow.activities.MovableClock;
import dev.questionflow.workflows.lane.LaneEntry;
import dev.questionflow.workflows.lane.LaneSnapshot;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Position and ETA as a waiting question sees them, on the in-memory ledger with a clock the test
 * moves.
 */
class LaneLedgerActivitiesTest {

  private static final String LANE = "model-primary";

  private final MovableClock clock = new MovableClock();
  private final InMemoryLaneLedger ledger = new InMemoryLaneLedger(clock);
  private final LaneLedgerActivities activities =
      new LaneLedgerActivities(ledger, Map.of(LANE, 10.0), clock);

  /** {@code calls} calls of {@code latencyMillis}, spread evenly over the next {@code seconds}. */
  private void serve(int calls, long latencyMillis, double seconds) {
    long step = (long) (seconds * 1000 / calls);
    for (int i = 0; i < calls; i++) {
      clock.advance(step);
      ledger.finished(LANE, true, latencyMillis);
    }
  }

  private LaneSnapshot enter(String workflowId) {
    return activities.enterLane(new LaneEntry(LANE, workflowId, 3));
  }

  @Test
  void aBusyLaneThatServesBelowItsLimitGivesEtasFromWhatItServes() {
    serve(4, 2500, 10); // one call of 2.5 s at a time: 0.4/s although the limit is 10/s
    clock.advance(1500);
    for (int i = 0; i < 5; i++) {
      enter("q-" + i);
    }

    LaneSnapshot sixth = enter("q-5");

    assertThat(sixth.position()).isEqualTo(5);
    assertThat(sixth.ratePerSecond()).isCloseTo(0.4, within(0.05));
    assertThat(sixth.etaSeconds()).isCloseTo(6 / 0.4 + 2.5, within(2.0));
  }

  @Test
  void aLaneServingAtItsLimitIsNeverCreditedAboveIt() {
    serve(150, 100, 10);
    clock.advance(1000);
    enter("q-0");

    LaneSnapshot second = enter("q-1");

    assertThat(second.ratePerSecond()).isEqualTo(10.0);
    assertThat(second.etaSeconds()).isCloseTo(2 / 10.0 + 0.1, within(0.01));
  }

  @Test
  void aLaneThatStartedServingAFewSecondsAgoIsJudgedByThoseSecondsOnly() {
    clock.advance(20_000); // idle
    serve(30, 100, 3); // then 10/s for 3 s: not 3/s over a 10 s window
    clock.advance(1500);
    enter("q-0");

    LaneSnapshot second = enter("q-1");

    assertThat(second.ratePerSecond()).isCloseTo(10.0, within(1.0));
  }

  @Test
  void theNextInLineOrAQuietLaneUsesTheRateLimit() {
    serve(2, 2500, 10); // too few calls to say anything about capacity
    clock.advance(1000);

    LaneSnapshot first = enter("q-0");
    LaneSnapshot second = enter("q-1");

    assertThat(first.position()).isZero();
    assertThat(first.ratePerSecond()).isEqualTo(10.0);
    assertThat(second.ratePerSecond()).isEqualTo(10.0);
  }

  @Test
  void aQuestionWhoseCallStartedIsNoLongerWaiting() {
    enter("q-0");
    ledger.started(LANE, "q-0");

    LaneSnapshot snapshot = activities.laneSnapshot(new LaneEntry(LANE, "q-0", 3));

    assertThat(snapshot.waiting()).isFalse();
    assertThat(snapshot.etaSeconds()).isZero();
  }

  @Test
  void anEntryAfterItsCallStartedIsNotWaiting() {
    ledger.started(LANE, "q-0"); // a free lane: the call started before its EnterLane ran

    LaneSnapshot late = enter("q-0");
    LaneSnapshot next = enter("q-1");

    assertThat(late.waiting()).isFalse();
    assertThat(next.position()).isZero();
  }
}
