package dev.questionflow.workflows.question;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.questionflow.workflows.lane.LaneSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The queue position and ETA a waiting question shows, from ledger snapshots and the clock alone.
 */
class QueueProjectionTest {

  private static final long T0 = 1_000_000L;

  @Test
  void theFirstProjectionMovesAtNineTenthsOfTheLanesRate() {
    LaneSnapshot shown = QueueProjection.first(new LaneSnapshot(20, 2.0, 1500, 12.0, T0));
    assertThat(shown.ratePerSecond()).isCloseTo(1.8, within(1e-9));
    assertThat(shown.positionAt(T0 + 5_000)).as("9 served in 5 s at 1.8/s").isEqualTo(11);
  }

  @Test
  void aRefreshTakesTheRateTheQuestionReallyMovedAtBoundedByTheLanesRate() {
    LaneSnapshot previous = new LaneSnapshot(20, 2.0, 1000, 11.5, T0);
    LaneSnapshot shown = new LaneSnapshot(20, 0.3, 1000, 11.5, T0); // shown 17 ahead 10 s later
    // 10 s later the ledger says 15 ahead: it moved at 0.5/s, not the 2/s the lane allows
    LaneSnapshot next =
        QueueProjection.next(previous, shown, new LaneSnapshot(15, 2.0, 1000, 9.0, T0 + 10_000));
    assertThat(next.position()).isEqualTo(15);
    assertThat(next.ratePerSecond()).isCloseTo(0.5 * QueueProjection.FACTOR, within(1e-9));
    assertThat(next.etaSeconds()).isCloseTo(16 / 0.5 + 1.0, within(1e-9));
  }

  @Test
  void thePositionShownNeverGoesUpWhenSomeoneOvertakes() {
    LaneSnapshot previous = new LaneSnapshot(10, 1.0, 0, 11, T0);
    LaneSnapshot shown =
        QueueProjection.first(previous); // projected 10 - floor(0.9 * 5) = 6 after 5 s
    LaneSnapshot next =
        QueueProjection.next(previous, shown, new LaneSnapshot(8, 1.0, 0, 9, T0 + 5_000));
    assertThat(next.position()).isEqualTo(6);
  }

  @Test
  void theQueueAllowanceIsTwiceTheExpectedWaitAtMostTheMaximum() {
    assertThat(QueueProjection.allowance(null, 60)).isZero();
    assertThat(QueueProjection.allowance(new LaneSnapshot(0, 1, 0, 3, T0), 60)).isZero();
    assertThat(QueueProjection.allowance(new LaneSnapshot(5, 1, 0, 7.2, T0), 60))
        .isEqualTo(Duration.ofSeconds(15));
    assertThat(QueueProjection.allowance(new LaneSnapshot(500, 1, 0, 501, T0), 60))
        .isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void onlyAQuestionWithOthersAheadOrOnASlowLaneIsShownWaiting() {
    assertThat(QueueProjection.worthShowing(null)).as("ledger down").isFalse();
    assertThat(QueueProjection.worthShowing(new LaneSnapshot(-1, 5, 0, 0, T0)))
        .as("its call already started")
        .isFalse();
    assertThat(QueueProjection.worthShowing(new LaneSnapshot(0, 5, 0, 0.2, T0)))
        .as("first in line, the next call within 0.2 s")
        .isFalse();
    assertThat(QueueProjection.worthShowing(new LaneSnapshot(1, 5, 0, 0.4, T0))).isTrue();
    assertThat(QueueProjection.worthShowing(new LaneSnapshot(0, 0.5, 0, 2, T0)))
        .as("first in line of a lane that calls every 2 s")
        .isTrue();
  }

  @Test
  void nearTheFrontTheNextRefreshComesEarly() {
    Duration refresh = Duration.ofSeconds(10);
    assertThat(QueueProjection.untilNextRefresh(new LaneSnapshot(100, 2, 0, 51, T0), refresh))
        .isEqualTo(refresh);
    // 6 ahead at 1/s: about NEAR_FRONT (2) are left after 4 s
    assertThat(QueueProjection.untilNextRefresh(new LaneSnapshot(6, 1, 0, 7, T0), refresh))
        .isEqualTo(Duration.ofSeconds(4));
    assertThat(QueueProjection.untilNextRefresh(new LaneSnapshot(3, 1, 0, 4, T0), refresh))
        .isEqualTo(refresh);
  }

  @Test
  void theLastFewPositionsAreShownAsNext() {
    assertThat(LaneSnapshot.shown(2)).isZero();
    assertThat(LaneSnapshot.shown(3)).isEqualTo(3);
  }
}
