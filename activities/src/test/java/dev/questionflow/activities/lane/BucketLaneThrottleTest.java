package dev.questionflow.activities.lane;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bucket4j.TimeMeter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BucketLaneThrottleTest {

  @Test
  void aCallerWokenWithinTheToleranceIsOnTimeOneWokenLaterIsNot() throws Exception {
    BucketLaneThrottle.SlotSleeper noWait = new BucketLaneThrottle.SlotSleeper(null);
    assertThat(noWait.onTime()).as("a token free at once").isTrue();

    BucketLaneThrottle.SlotSleeper prompt = new BucketLaneThrottle.SlotSleeper(null);
    prompt.park(TimeUnit.MILLISECONDS.toNanos(1));
    assertThat(prompt.onTime()).isTrue();

    BucketLaneThrottle.SlotSleeper late = new BucketLaneThrottle.SlotSleeper(null);
    late.park(TimeUnit.MILLISECONDS.toNanos(1));
    // what a stall does to the caller after its slot: it is asked only after waking
    TimeUnit.MILLISECONDS.sleep(BucketLaneThrottle.MAX_LATENESS.toMillis() + 30);
    assertThat(late.onTime()).isFalse();
  }

  @Test
  void consecutiveCallsOfALaneAreSpacedAtTheRateAndARateChangeReconfiguresTheSameBucket()
      throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    BucketLaneThrottle throttle =
        new BucketLaneThrottle(null, new LocalBuckets(TimeMeter.SYSTEM_NANOTIME, 100), meters);
    long t0 = System.nanoTime();
    for (int i = 0; i < 6; i++) {
      throttle.acquire("lane-a", 50); // 50/s x 0.985: one call per ~20.3 ms, the first at once
    }
    double spanMillis = (System.nanoTime() - t0) / 1e6;
    // five spacings of 20.3 ms; no upper bound (a loaded machine may be slower, never faster)
    assertThat(spanMillis)
        .isGreaterThanOrEqualTo(5 * 1000 / (50 * BucketLaneThrottle.SPACING_MARGIN) - 1);

    long t1 = System.nanoTime();
    for (int i = 0; i < 3; i++) {
      throttle.acquire("lane-a", 25); // halved: the same bucket, now one per ~40.6 ms
    }
    assertThat((System.nanoTime() - t1) / 1e6)
        .isGreaterThanOrEqualTo(2 * 1000 / (25 * BucketLaneThrottle.SPACING_MARGIN) - 1);
  }

  @Test
  void noMoreThanTheRateIsReleasedInAnyWindowEvenWhenCallersComeTogether() throws Exception {
    io.micrometer.core.instrument.simple.SimpleMeterRegistry meters =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    BucketLaneThrottle throttle =
        new BucketLaneThrottle(null, new LocalBuckets(TimeMeter.SYSTEM_NANOTIME, 100), meters);
    long start = System.nanoTime();
    for (int i = 0; i < 3; i++) {
      throttle.capWindow("lane-w", 3.0, false); // as if three late callers woke together
    }
    long threeReleased = System.nanoTime();

    throttle.capWindow("lane-w", 3.0, false);

    // the fourth waits until the first has left the window (n / rate = 1 s, plus the margin)
    assertThat(System.nanoTime() - start)
        .isGreaterThanOrEqualTo((long) (1e9 * BucketLaneThrottle.WINDOW_MARGIN) - 1_000_000);
    assertThat(threeReleased - start).isLessThan(500_000_000L);
    assertThat(meters.counter("cs_lane_throttle_window_waits_total").count())
        .isGreaterThanOrEqualTo(1);
  }
}
