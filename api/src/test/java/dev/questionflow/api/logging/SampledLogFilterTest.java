package dev.questionflow.api.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Drives a real Logback context: what reaches an appender when 1,000 questions log the same
 * fallback warning.
 */
class SampledLogFilterTest {

  private final AtomicLong nanos = new AtomicLong();
  private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private SampledLogFilter filter;

  @BeforeEach
  void install() {
    filter =
        new SampledLogFilter(
            new SampledLogFilter.Settings(List.of("test.ladder"), 10, 100, Duration.ofMinutes(1)),
            nanos::get);
    filter.start();
    context.addTurboFilter(filter);
    appender.start();
    for (String name :
        List.of("test.ladder.Workflow", "test.other", SampledLogFilter.SUMMARY_LOGGER)) {
      Logger logger = context.getLogger(name);
      logger.addAppender(appender);
      logger.setLevel(Level.DEBUG);
    }
  }

  @AfterEach
  void remove() {
    context.getTurboFilterList().remove(filter);
    for (String name :
        List.of("test.ladder.Workflow", "test.other", SampledLogFilter.SUMMARY_LOGGER)) {
      context.getLogger(name).detachAppender(appender);
    }
  }

  private long lines(String loggerName) {
    return appender.list.stream().filter(e -> e.getLoggerName().equals(loggerName)).count();
  }

  @Test
  void anOutageLogsTheFirstTenThenOneInAHundredAndSaysHowManyItLeftOut() {
    Logger ladder = context.getLogger("test.ladder.Workflow");
    for (int i = 0; i < 1000; i++) {
      ladder.warn("primary model failed: {}", "ModelServerError");
    }
    assertThat(lines("test.ladder.Workflow"))
        .isEqualTo(10 + 9); // 10, then the 100th, 200th ... 900th of the rest

    nanos.addAndGet(Duration.ofSeconds(61).toNanos());
    ladder.warn("primary model failed: {}", "ModelServerError");

    assertThat(lines("test.ladder.Workflow")).isEqualTo(20);
    assertThat(
            appender.list.stream()
                .filter(e -> e.getLoggerName().equals(SampledLogFilter.SUMMARY_LOGGER)))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getFormattedMessage())
                    .isEqualTo(
                        "left out 981 lines like \"primary model failed: {}\" of test.ladder.Workflow in the last 60 s"
                            + " (log sampling)"));
  }

  @Test
  void errorsInfoOtherMessagesAndOtherLoggersAreNeverSampled() {
    Logger ladder = context.getLogger("test.ladder.Workflow");
    Logger other = context.getLogger("test.other");
    for (int i = 0; i < 50; i++) {
      ladder.error("ticket {} is a dead letter", i);
      ladder.info("answered {}", i);
      other.warn("something else {}", i);
    }
    for (int i = 0; i < 12; i++) {
      ladder.warn("retrieval stage failed: {}", i);
    }

    assertThat(lines("test.ladder.Workflow")).isEqualTo(50 + 50 + 10);
    assertThat(lines("test.other")).isEqualTo(50);
  }
}
