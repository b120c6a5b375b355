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
    Resilience resilience,
    Ladder ladder,
    Drills drills,
    Api api) {

  /** Timeouts and retry policy of one stage's activities. */
  public record StageOptions(
      Duration startToCloseTimeout,
      Duration scheduleToCloseTimeout,
      Duration scheduleToStartTimeout,
      Retry retry) {}

  public record Retry(
      int maxAttempts,
      Duration initialInterval,
      double backoffCoefficient,
      Duration maxInterval,
      List<String> nonRetryableErrorTypes) {}

  /**
   * @param backup the optional backup model ({@code cs.llm.backup}); a blank base URL means none
   * @param rateLimitDefaultDelay next retry delay after a 429 without a Retry-After header
   * @param rateLimitMaxDelay a longer Retry-After is not waited for: the question degrades at once
   */
  public record Llm(
      String baseUrl,
      String apiKey,
      String model,
      Duration timeout,
      String companyName,
      Backup backup,
      Duration rateLimitDefaultDelay,
      Duration rateLimitMaxDelay) {

    /** The backup model; timeout null = the primary's. */
    public record Backup(String baseUrl, String apiKey, String model, Duration timeout) {}
  }

  /**
   * Circuit breakers per dependency and retrieval fallbacks.
   *
   * @param defaults breaker settings for every dependency ({@code cs.resilience.defaults}); unset fields = the SPEC's
   * @param breakers per-dependency overrides by id (primary-model, backup-model, embedding, redis, helpdesk)
   * @param retrieval time limits of the retrieval fallbacks and the size of the hot-entry cache
   */
  public record Resilience(
      dev.questionflow.activities.resilience.BreakerSettings defaults,
      Map<String, dev.questionflow.activities.resilience.BreakerSettings> breakers,
      Retrieval retrieval) {

    public record Retrieval(
        Duration semanticTimeout, Duration keywordTimeout, Integer hotCacheQuestions, Integer hotCacheEntries) {}
  }

  public record Redis(String url) {
    public boolean configured() {
      return url != null && !url.isBlank();
    }
  }

  public record Faq(String pack, String indexDir, boolean semanticEnabled) {}

  public record Tickets(Duration humanReplyWindow, String promisedReply, URI webhookUrl, Duration webhookTimeout) {}

  /**
   * How a question walks down the ladder (frozen into each workflow's input).
   *
   * @param chainBudget processing budget of one question (SPEC: about 30 s)
   * @param criticalStages stages whose failure hands the question to a person instead of skipping them
   * @param deadLetterInitialBackoff first wait before redelivering a ticket the helpdesk did not take (doubles)
   * @param deadLetterMaxBackoff cap of that wait
   */
  public record Ladder(
      Duration chainBudget,
      List<String> criticalStages,
      Duration deadLetterInitialBackoff,
      Duration deadLetterMaxBackoff) {}

  /**
   * Degradation drills: rehearse the ladder on a staging (or production) instance.
   *
   * @param down dependencies forced down at start: breaker ids ({@code primary-model}, {@code backup-model},
   *     {@code embedding}, {@code redis}, {@code helpdesk}: the breaker is held FORCED_OPEN) and {@code retrieval}
   *     (the retrieval stage fails, so answers are given without knowledge)
   */
  public record Drills(List<String> down) {
    public boolean isDown(String id) {
      return down != null && down.contains(id);
    }
  }

  public record Api(Duration sseTimeout, Duration ssePollInterval) {}
}
