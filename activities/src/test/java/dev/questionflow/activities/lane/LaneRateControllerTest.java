package dev.questionflow.activities.lane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.MovableClock;
import dev.questionflow.activities.lane.LaneLedger.LaneStats;
import dev.questionflow.activities.lane.LaneRateController.History;
import dev.questionflow.activities.lane.LaneRateController.Lane;
import dev.questionflow.activities.lane.LaneRateController.Settings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LaneRateControllerTest {

  /**
   * The e2e test's settings: a 4 s interval and window, so a run takes seconds of simulated time.
   */
  private static final Settings FAST =
      new Settings(
          Duration.ofSeconds(4), Duration.ofSeconds(4), 0.95, Duration.ofSeconds(5), 0.10, 0.1, 10);

  private static final Duration LONG_AGO = Duration.ofHours(1);
  private static final History SETTLED = new History(LONG_AGO, null, LONG_AGO);

  private static LaneStats stats(long calls, long ok, double meanMillis) {
    return new LaneStats(calls, ok, meanMillis);
  }

  @Test
  void halvesBelowTheSuccessRateOrAboveTheMeanLatency() {
    assertThat(LaneRateController.decide(10, 10, stats(40, 37, 50), FAST, SETTLED)).isEqualTo(5.0);
    assertThat(LaneRateController.decide(10, 10, stats(40, 40, 5_001), FAST, SETTLED))
        .isEqualTo(5.0);
    assertThat(LaneRateController.decide(10, 10, stats(40, 38, 5_000), FAST, SETTLED))
        .isEqualTo(10.0);
  }

  @Test
  void judgesNothingOnTooFewCallsOrWithinTwoWindowsOfStartUp() {
    assertThat(LaneRateController.decide(10, 10, stats(9, 0, 50), FAST, SETTLED)).isEqualTo(10.0);
    History warmingUp = new History(Duration.ofSeconds(7), null, Duration.ofSeconds(7));
    assertThat(LaneRateController.decide(10, 10, stats(40, 0, 50), FAST, warmingUp))
        .isEqualTo(10.0);
    History warm = new History(Duration.ofSeconds(8), null, Duration.ofSeconds(8));
    assertThat(LaneRateController.decide(10, 10, stats(40, 0, 50), FAST, warm)).isEqualTo(5.0);
  }

  @Test
  void aSecondHalvingWaitsForAWindowAtTheLowerRate() {
    History halvedRecently = new History(LONG_AGO, Duration.ofSeconds(3), Duration.ofSeconds(3));
    assertThat(LaneRateController.decide(5, 10, stats(40, 20, 50), FAST, halvedRecently))
        .isEqualTo(5.0);
    History halvedAWindowAgo = new History(LONG_AGO, Duration.ofSeconds(4), Duration.ofSeconds(4));
    assertThat(LaneRateController.decide(5, 10, stats(40, 20, 50), FAST, halvedAWindowAgo))
        .isEqualTo(2.5);
  }

  @Test
  void neverGoesBelowTheMinimumRate() {
    assertThat(LaneRateController.decide(0.15, 10, stats(40, 0, 50), FAST, SETTLED)).isEqualTo(0.1);
  }

  @Test
  void climbsByTenPercentOfTheConfiguredRateOncePerIntervalUpToIt() {
    History raisedRecently = new History(LONG_AGO, LONG_AGO, Duration.ofSeconds(3));
    assertThat(LaneRateController.decide(5, 10, stats(40, 40, 50), FAST, raisedRecently))
        .isEqualTo(5.0);
    assertThat(LaneRateController.decide(5, 10, stats(40, 40, 50), FAST, SETTLED)).isEqualTo(6.0);
    assertThat(LaneRateController.decide(9.5, 10, stats(40, 40, 50), FAST, SETTLED))
        .isEqualTo(10.0);
    assertThat(LaneRateController.decide(10, 10, stats(40, 40, 50), FAST, SETTLED)).isEqualTo(10.0);
  }

  @Test
  void aLoweredConfigurationTakesEffectAtOnce() {
    assertThat(
            LaneRateController.decide(
                10, 6, stats(0, 0, 0), FAST, new History(Duration.ZERO, null, Duration.ZERO)))
        .isEqualTo(6.0);
  }

  /**
   * The controller on a simulated lane: 10 calls/s finish, each failing with the current error
   * probability (seeded), the controller checks once per simulated second.
   */
  private static final class SimulatedLane {
    final MovableClock clock = new MovableClock();
    final InMemoryLaneLedger ledger = new InMemoryLaneLedger(clock);
    final List<double[]> applied = new ArrayList<>(); // {seconds, server-side rate}
    final LaneRateController controller;
    final Random random = new Random(42);
    double errorRate;

    SimulatedLane() {
      controller =
          new LaneRateController(
              List.of(new Lane("primary", "q-model-primary", 10)),
              FAST,
              ledger,
              (queue, rate, reason) -> applied.add(new double[] {clock.millis() / 1000.0, rate}),
              "me",
              new SimpleMeterRegistry(),
              () -> clock.millis() * 1_000_000);
    }

    /** Runs for {@code seconds}; returns the rate after each check. */
    List<Double> run(int seconds) {
      List<Double> rates = new ArrayList<>();
      for (int s = 0; s < seconds; s++) {
        controller.tick();
        rates.add(controller.rate("primary"));
        for (int i = 0; i < 10; i++) {
          clock.advance(100);
          ledger.finished("q-model-primary", random.nextDouble() >= errorRate, 50);
        }
      }
      return rates;
    }
  }

  @Test
  void halvedWithinOneIntervalOfTheErrorsStartingThenBackInTenPercentSteps() {
    SimulatedLane lane = new SimulatedLane();
    assertThat(lane.run(10)).containsOnly(10.0);

    lane.errorRate = 0.2;
    List<Double> failing = lane.run(12);
    int halvedAfter = failing.indexOf(5.0);
    assertThat(halvedAfter).as("seconds until halved, %s", failing).isBetween(1, 4);
    // halved again a full window later, since the model still fails at the lower rate
    assertThat(failing).contains(2.5);

    lane.errorRate = 0;
    List<Double> recovering = lane.run(60);
    List<Double> steps = new ArrayList<>();
    for (double r : recovering) {
      if (steps.isEmpty() || r != steps.get(steps.size() - 1)) {
        steps.add(r);
      }
    }
    // the window first has to be healthy again, then one step of 1.0/s (10 % of 10) per 4 s
    // interval, the last
    // one capped at the configured rate
    assertThat(steps.get(steps.size() - 1)).as("steps %s", steps).isEqualTo(10.0);
    for (int i = 1; i < steps.size() - 1; i++) {
      assertThat(steps.get(i) - steps.get(i - 1))
          .as("steps %s", steps)
          .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    }
    assertThat(steps.get(steps.size() - 1) - steps.get(steps.size() - 2))
        .isBetween(0.0, 1.0 + 1e-9);
    int firstRaise = recovering.indexOf(steps.get(1));
    int secondRaise = recovering.indexOf(steps.get(2));
    assertThat(secondRaise - firstRaise).isEqualTo(4);
    // the server gets every rate with its headroom
    assertThat(lane.applied.get(lane.applied.size() - 1)[1]).isEqualTo(LaneRates.serverLimit(10));
  }

  @Test
  void coldStartFailuresWithinTheFirstWindowDoNotHalveTheLane() {
    SimulatedLane lane = new SimulatedLane();
    lane.errorRate = 0.5;
    List<Double> startUp = lane.run(4);
    lane.errorRate = 0;
    List<Double> after = lane.run(10);
    assertThat(startUp).containsOnly(10.0);
    assertThat(after).containsOnly(10.0);
  }

  @Test
  void theServerLimitFollowsTheLedgerAfterRedisLostTheRate() {
    SimulatedLane lane = new SimulatedLane();
    lane.run(10);
    lane.errorRate = 0.5;
    lane.run(2);
    lane.errorRate = 0;
    assertThat(lane.controller.rate("primary")).isEqualTo(5.0);
    assertThat(lane.applied.get(lane.applied.size() - 1)[1]).isEqualTo(LaneRates.serverLimit(5));
    // Redis came back without the key: the ledger answers the configured rate, and the server's
    // limit must not stay at the halved one the controller set before
    lane.ledger.setRate("q-model-primary", 10);
    lane.run(1);
    assertThat(lane.applied.get(lane.applied.size() - 1)[1]).isEqualTo(LaneRates.serverLimit(10));
  }

  @Test
  void anInstanceThatDoesNotLeadFollowsTheSharedRate() {
    SimulatedLane lane = new SimulatedLane();
    LaneRateController follower =
        new LaneRateController(
            List.of(new Lane("primary", "q-model-primary", 10)),
            FAST,
            lane.ledger,
            (queue, rate, reason) -> {
              throw new AssertionError("a follower must not set the rate");
            },
            "other",
            new SimpleMeterRegistry(),
            () -> lane.clock.millis() * 1_000_000);
    lane.run(10);
    lane.errorRate = 0.2;
    lane.run(6);
    follower.tick();
    assertThat(follower.rate("primary"))
        .isEqualTo(lane.controller.rate("primary"))
        .isLessThan(10.0);
  }
}
