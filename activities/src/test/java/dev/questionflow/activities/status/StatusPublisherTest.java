package dev.questionflow.activities.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The publisher's thread: a failed write is tried again; the newest status is the one kept. */
class StatusPublisherTest {

  /** A store whose writes do what the test says, its reads from {@code memory}. */
  private record Writes(StatusStore memory, Function<PublishedStatus, Boolean> writes)
      implements StatusStore {
    @Override
    public boolean offer(PublishedStatus status) {
      return writes.apply(status);
    }

    @Override
    public void offerFirst(PublishedStatus status) {}

    @Override
    public PublishedStatus latest(String workflowId) {
      return memory.latest(workflowId);
    }

    @Override
    public void laneChanged(String lane) {}

    @Override
    public void listen(Listener listener) {}

    @Override
    public boolean live() {
      return true;
    }

    @Override
    public String kind() {
      return "test";
    }
  }

  private static PublishedStatus status(String id, long version, Stage stage) {
    return new PublishedStatus(
        id, version, 0, new QuestionStatus(id, stage, null, null, null, null));
  }

  @Test
  void aWriteThatFailedIsTriedAgainAndTheNewestStatusWins() {
    InMemoryStatusStore memory =
        new InMemoryStatusStore(100, Duration.ofMinutes(1), Clock.systemUTC());
    AtomicBoolean down = new AtomicBoolean(true);
    AtomicInteger attempts = new AtomicInteger();
    StatusStore flaky =
        new Writes(
            memory,
            status -> {
              attempts.incrementAndGet();
              if (down.get()) {
                throw new IllegalStateException("Redis is down");
              }
              return memory.offer(status);
            });
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    StatusPublisher publisher = new StatusPublisher(flaky, 10, Duration.ofMillis(20), meters);
    publisher.submit(status("q-1", 1, Stage.PROCESSING));
    await().atMost(Duration.ofSeconds(5)).until(() -> attempts.get() >= 2);
    publisher.submit(status("q-1", 2, Stage.ANSWERED)); // while the first still fails
    down.set(false);

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> memory.latest("q-1") != null && memory.latest("q-1").version() == 2);
    assertThat(meters.get("cs_status_published_total").tag("result", "failed").counter().count())
        .isPositive();
    publisher.close();
  }

  @Test
  void beyondItsCapacityANewQuestionsStatusIsDroppedAndCounted() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    AtomicInteger taken = new AtomicInteger();
    InMemoryStatusStore memory =
        new InMemoryStatusStore(100, Duration.ofMinutes(1), Clock.systemUTC());
    StatusStore blocking =
        new Writes(
            memory,
            status -> {
              taken.incrementAndGet();
              try {
                gate.await(); // nothing leaves the queue meanwhile
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return memory.offer(status);
            });
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    StatusPublisher publisher = new StatusPublisher(blocking, 2, Duration.ofMillis(20), meters);
    publisher.submit(status("q-1", 1, Stage.PROCESSING));
    await().atMost(Duration.ofSeconds(5)).until(() -> taken.get() == 1); // the thread holds it
    publisher.submit(status("q-2", 1, Stage.PROCESSING));
    publisher.submit(status("q-3", 1, Stage.PROCESSING));
    publisher.submit(status("q-3", 2, Stage.ANSWERED)); // the same question: replaces, no drop
    publisher.submit(status("q-4", 1, Stage.PROCESSING)); // a third question: over capacity

    assertThat(publisher.waiting()).isEqualTo(2);
    assertThat(meters.get("cs_status_published_total").tag("result", "dropped").counter().count())
        .isEqualTo(1);
    gate.countDown();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> memory.latest("q-3") != null && memory.latest("q-3").version() == 2);
    assertThat(memory.latest("q-4")).isNull();
    publisher.close();
  }
}
