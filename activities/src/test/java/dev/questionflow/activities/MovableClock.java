package dev.questionflow.activities;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves: time-based rules are tested without sleeping. */
public final class MovableClock extends Clock {

  private long millis = Instant.parse("2027-01-15T08:00:00Z").toEpochMilli();

  public void advance(long byMillis) {
    millis += byMillis;
  }

  public void advance(Duration by) {
    advance(by.toMillis());
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
