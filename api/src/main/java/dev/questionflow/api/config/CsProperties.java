package dev.questionflow.api.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Everything operators tune, bound from the {@code cs} section of application.yml. */
@ConfigurationProperties("cs")
public record CsProperties(
    String taskQueue,
    Map<String, StageOptions> activities,
    Llm llm,
    Redis redis,
    Faq faq,
    Tickets tickets,
    Api api) {

  /** Timeouts and retry policy of one stage's activities. */
  public record StageOptions(
      Duration startToCloseTimeout,
      Duration scheduleToCloseTimeout,
      Retry retry) {}

  public record Retry(
      int maxAttempts,
      Duration initialInterval,
      double backoffCoefficient,
      Duration maxInterval,
      List<String> nonRetryableErrorTypes) {}

  public record Llm(String baseUrl, String apiKey, String model, Duration timeout, String companyName) {}

  public record Redis(String url) {
    public boolean configured() {
      return url != null && !url.isBlank();
    }
  }

  public record Faq(String pack, String indexDir, boolean semanticEnabled) {}

  public record Tickets(Duration humanReplyWindow, String promisedReply, URI webhookUrl, Duration webhookTimeout) {}

  public record Api(Duration sseTimeout, Duration ssePollInterval) {}
}
