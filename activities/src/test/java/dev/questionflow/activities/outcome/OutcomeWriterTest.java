package dev.questionflow.activities.outcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.questionflow.workflows.outcome.QuestionRecord;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OutcomeWriterTest {

  @Test
  void aFullQueueDropsAndCountsInsteadOfBlocking() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    InMemoryOutcomeStream memory = new InMemoryOutcomeStream(100);
    OutcomeStream blocked =
        new OutcomeStream() {
          @Override
          public boolean append(QuestionRecord record) {
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return memory.append(record);
          }

          @Override
          public List<QuestionRecord> since(long epochMillis) {
            return memory.since(epochMillis);
          }
        };
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (OutcomeWriter writer = new OutcomeWriter(blocked, 1, meters)) {
      writer.submit(RedisOutcomeStreamTest.record("a", 1)); // taken by the thread, blocked
      await().until(() -> meters.counter("cs_outcomes_dropped").count() == 0);
      for (String id : List.of("b", "c", "d")) {
        writer.submit(RedisOutcomeStreamTest.record(id, 1));
      }
      assertThat(meters.counter("cs_outcomes_dropped").count()).isGreaterThanOrEqualTo(1);
      release.countDown();
      await().until(() -> meters.counter("cs_outcomes_written").count() >= 2);
    }
    assertThat(
            meters.counter("cs_outcomes_written").count()
                + meters.counter("cs_outcomes_dropped").count())
        .isEqualTo(4);
  }
}
