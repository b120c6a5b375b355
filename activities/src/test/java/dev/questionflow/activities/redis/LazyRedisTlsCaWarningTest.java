package dev.questionflow.activities.redis;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.questionflow.activities.testing.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Issue 28, item 11: a CA for a plain redis:// URL is ignored, and the start says so. */
class LazyRedisTlsCaWarningTest {

  private final Logger logger = (Logger) LoggerFactory.getLogger(LazyRedis.class);
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  @BeforeEach
  void capture() {
    appender.start();
    logger.addAppender(appender);
  }

  @AfterEach
  void release() {
    logger.detachAppender(appender);
  }

  private List<String> warnings() {
    return appender.list.stream()
        .filter(event -> event.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Test
  void aCaWithAPlainUrlIsAWarning(@TempDir Path dir) throws Exception {
    // a real CA: Lettuce reads the file when the client is set up
    TestCertificates.newCa(dir);
    try (LazyRedis redis =
        new LazyRedis(
            "redis://127.0.0.1:1",
            Duration.ofMillis(100),
            Duration.ofSeconds(1),
            dir.resolve("ca.pem"))) {
      assertThat(warnings())
          .singleElement()
          .asString()
          .contains("REDIS_TLS_CA")
          .contains("IGNORED")
          .contains("127.0.0.1:1");
    }
  }

  @Test
  void aPlainUrlWithoutCaIsNot() {
    new LazyRedis("redis://127.0.0.1:1", Duration.ofMillis(100), Duration.ofSeconds(1), null)
        .close();
    assertThat(warnings()).isEmpty();
  }
}
