package dev.questionflow.api.ratelimit;

import io.github.bucket4j.TimeMeter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Bucket4j time meter the test moves by hand: refills happen when the test says, never by
 * accident.
 */
final class ManualClock implements TimeMeter {

  private final AtomicLong nanos = new AtomicLong(System.currentTimeMillis() * 1_000_000L);

  @Override
  public long currentTimeNanos() {
    return nanos.get();
  }

  @Override
  public boolean isWallClockBased() {
    return true;
  }

  void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }
}
