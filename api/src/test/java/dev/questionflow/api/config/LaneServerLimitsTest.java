package dev.questionflow.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.spring.boot.WorkerOptionsCustomizer;
import io.temporal.worker.WorkerOptions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The lane workers' task-queue rate limits come from cs.lanes.<model>.rate with the server's
 * headroom.
 */
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.faq.semantic-enabled=false",
      "cs.lanes.primary.rate=10",
      "cs.lanes.backup.rate=2.5"
    })
class LaneServerLimitsTest {

  @Autowired List<WorkerOptionsCustomizer> customizers;
  @Autowired CsProperties properties;

  private double limitFor(String taskQueue) {
    WorkerOptions.Builder builder = WorkerOptions.newBuilder();
    customizers.forEach(customizer -> customizer.customize(builder, "worker", taskQueue));
    return builder.build().getMaxTaskQueueActivitiesPerSecond();
  }

  @Test
  void eachLaneGetsItsQuotaWithTheServersHeadroomAndOtherQueuesNone() {
    assertThat(limitFor(properties.lanes().get("primary").taskQueue())).isEqualTo(15.0);
    assertThat(limitFor(properties.lanes().get("backup").taskQueue())).isEqualTo(3.75);
    assertThat(limitFor(properties.taskQueue())).as("the questions' own queue").isZero();
  }
}
