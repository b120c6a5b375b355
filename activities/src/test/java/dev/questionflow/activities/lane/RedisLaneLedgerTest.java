package dev.questionflow.activities.lane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.MovableClock;
import dev.questionflow.activities.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lane ledger's line in a real Redis at IT_REDIS_URL (default redis://127.0.0.1:6379); skipped
 * when none answers (fails under CI=true).
 */
class RedisLaneLedgerTest {

  private static final String URL = TestRedis.URL;

  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private RedisLaneLedger ledger;
  private final String lane = "test-lane-" + UUID.randomUUID();

  @BeforeEach
  void connect() {
    client = RedisClient.create(URL);
    try {
      connection = client.connect();
    } catch (RuntimeException e) {
      client.shutdown();
      TestRedis.unavailable(e);
    }
    ledger = new RedisLaneLedger(connection, Clock.systemUTC(), Duration.ofMinutes(5));
  }

  @AfterEach
  void close() {
    if (connection != null) {
      for (String suffix : new String[] {"waiting", "seq", "enqueued", "started"}) {
        connection.sync().del("cs:lane:{" + lane + "}:" + suffix);
      }
      connection.close();
    }
    client.shutdown();
  }

  @Test
  void positionsOfManyQuestionsInOneCallAreTheirRanks() {
    ledger.enter(lane, "q-1", 3);
    ledger.enter(lane, "q-2", 3);
    ledger.enter(lane, "vip", 1);

    assertThat(ledger.positions(lane, java.util.List.of("q-2", "nobody", "vip", "q-1")))
        .containsExactly(2, -1, 0, 1);
    assertThat(ledger.positions(lane, java.util.List.of())).isEmpty();
  }

  @Test
  void deadlinesOfManyQuestionsInOneCallAreTheirEntries() {
    long deadline = System.currentTimeMillis() + 30_000;
    ledger.enter(lane, "q-1", 3, deadline);
    ledger.enter(lane, "q-2", 3, deadline + 1);

    assertThat(ledger.deadlines(lane, java.util.List.of("q-2", "nobody", "q-1")))
        .containsExactly(deadline + 1, -1, deadline);
    assertThat(ledger.deadlines(lane, java.util.List.of())).isEmpty();
  }

  @Test
  void theLineIsOrderedByPriorityKeyThenArrivalAndAStartedCallLeavesIt() {
    assertThat(ledger.enter(lane, "q-1", 3)).isZero();
    assertThat(ledger.enter(lane, "q-2", 3)).isEqualTo(1);
    assertThat(ledger.enter(lane, "vip", 1)).isZero(); // a lower key is served first
    assertThat(ledger.enter(lane, "q-1", 3)).as("idempotent").isEqualTo(1);

    ledger.started(lane, "vip");

    assertThat(ledger.position(lane, "q-1")).isZero();
    assertThat(ledger.position(lane, "q-2")).isEqualTo(1);
    assertThat(ledger.position(lane, "vip")).isEqualTo(-1);
  }

  @Test
  void anEntryArrivingAfterItsCallStartedIsNotCountedAsWaiting() {
    ledger.enter(lane, "q-1", 3);
    ledger.started(lane, "q-2"); // a free lane: the call started before its EnterLane ran

    assertThat(ledger.enter(lane, "q-2", 3)).isEqualTo(-1);
    assertThat(ledger.position(lane, "q-2")).isEqualTo(-1);
    assertThat(ledger.enter(lane, "q-3", 3)).as("q-2 takes no place in the line").isEqualTo(1);
  }

  @Test
  void frontLineArrivalsAreCountedPerSecondOnceEach() {
    MovableClock clock = new MovableClock();
    RedisLaneLedger ticking = new RedisLaneLedger(connection, clock, Duration.ofMinutes(5));
    ticking.enter(lane, "q-1", 3);
    ticking.enter(lane, "q-1", 3); // the same entry again: not a second arrival
    ticking.enter(lane, "vip", 1);
    ticking.enter(lane, "standing", 4); // the standing line is not a front line
    clock.advance(1000);
    ticking.enter(lane, "q-2", 3);
    clock.advance(1000);

    assertThat(ticking.frontArrivalsPerSecond(lane, 3)).containsExactly(0, 2, 1);
    assertThat(ticking.callsPerSecond(lane, 3)).containsExactly(0, 0, 0);
  }

  @Test
  void frontTicketsRunOutAndComeBackAtTheRate() {
    MovableClock clock = new MovableClock();
    RedisLaneLedger ticking = new RedisLaneLedger(connection, clock, Duration.ofMinutes(5));
    int taken = 0;
    for (int i = 0; i < 5; i++) {
      taken += ticking.takeFrontTicket(lane, 2, 3) ? 1 : 0;
    }
    assertThat(taken).isEqualTo(3);
    clock.advance(500); // one ticket at 2 per second
    assertThat(ticking.takeFrontTicket(lane, 2, 3)).isTrue();
    assertThat(ticking.takeFrontTicket(lane, 2, 3)).isFalse();
    connection.sync().del("cs:lane:{" + lane + "}:front-tickets");
  }
}
