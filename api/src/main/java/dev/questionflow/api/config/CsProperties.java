package dev.questionflow.api.config;

import dev.questionflow.activities.generation.ModelSettings;
import dev.questionflow.activities.privacy.PersonalData;
import dev.questionflow.activities.privacy.RedactionSettings;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

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
    Map<String, Lane> lanes,
    FlowControl flowControl,
    Api api,
    Sessions sessions,
    LogSampling logSampling,
    Privacy privacy,
    Patience patience) {

  public CsProperties {
    patience = patience == null ? new Patience(null, null, null) : patience;
  }

  /**
   * How long customers wait for a model ({@code cs.patience}): a question's queue deadline is when
   * its customer began waiting plus its patience; past it the customer gets the best answer below
   * the model.
   *
   * @param queue the longest a question waits in a model's line before its call starts (SPEC: the
   *     10 s after which waiting needs a person's attention)
   * @param vipQueue the same for VIP questions
   * @param upgrade how long an upgrade (a fuller answer after a quick one) may wait in the line
   */
  public record Patience(Duration queue, Duration vipQueue, Duration upgrade) {
    public Patience {
      queue = queue == null ? Duration.ofSeconds(10) : queue;
      vipQueue = vipQueue == null ? Duration.ofSeconds(20) : vipQueue;
      upgrade = upgrade == null ? Duration.ofMinutes(2) : upgrade;
    }

    /** The configured patience of a question of this tier (the most a caller may ask for). */
    public long queueSecondsFor(boolean vip) {
      return (vip ? vipQueue : queue).toSeconds();
    }
  }

  /**
   * What is done to protect the customer's personal data ({@code cs.privacy}).
   *
   * @param redaction what the redactor removes before text leaves for the model or is stored
   */
  public record Privacy(Redaction redaction) {

    /**
     * Each kind on (null = on) or off, and the values never redacted (our own support number...).
     */
    public record Redaction(
        Boolean card,
        Boolean phone,
        Boolean email,
        Boolean iban,
        Boolean cnId,
        List<String> allow) {

      /** The redactor's settings: a kind left unset is redacted. */
      public RedactionSettings settings() {
        Set<PersonalData> kinds = EnumSet.noneOf(PersonalData.class);
        Map.of(
                PersonalData.CARD, card,
                PersonalData.PHONE, phone,
                PersonalData.EMAIL, email,
                PersonalData.IBAN, iban,
                PersonalData.CN_ID, cnId)
            .forEach(
                (kind, on) -> {
                  if (on == null || on) {
                    kinds.add(kind);
                  }
                });
        return new RedactionSettings(kinds, allow);
      }
    }
  }

  /**
   * Sampling of repeated fallback lines (WARN only; ERROR, INFO, DEBUG never): per logger and
   * message template, the first {@code firstPerWindow} lines per {@code window}, then one in {@code
   * thenOneIn}.
   */
  public record LogSampling(
      List<String> loggers, int firstPerWindow, int thenOneIn, Duration window) {}

  /**
   * A model lane: the model's calls run on their own task queue whose server-side rate limit is the
   * model's quota (shared by all instances), with at most {@code maxConcurrent} calls in flight per
   * worker.
   *
   * @param rate calls per second (Temporal {@code maxTaskQueueActivitiesPerSecond}); the adaptive
   *     controller lowers it while the model is unhealthy
   */
  public record Lane(String taskQueue, double rate, int maxConcurrent) {}

  /**
   * Queueing and the adaptive rate (SPEC "adaptive flow control").
   *
   * @param maxQueueWait longest wait for a lane before the question degrades (SPEC: 60 s)
   * @param positionRefresh how often a waiting question refreshes its queue position (O(1) history
   *     events each)
   * @param adaptiveInterval control interval; {@code adaptiveWindow} the sliding window of calls it
   *     looks at
   * @param minSuccessRate below it (or above {@code maxMeanLatency}) the lane's rate is halved
   * @param stepUp share of the configured rate added per healthy interval
   * @param minRate the rate is never halved below this (calls/s)
   * @param minCalls fewer calls in the window than this: no judgement
   * @param slowAloneHalves whether a slow lane whose calls all succeed is halved too (see
   *     LaneRateController.Settings)
   * @param throttleRedisTimeout time limit of one reservation in the lane throttle's shared bucket:
   *     longer than the access limits' (a model call waits for its slot anyway), since a call that
   *     falls back to a per-instance bucket may go above the quota
   */
  public record FlowControl(
      Duration maxQueueWait,
      Duration positionRefresh,
      boolean adaptiveEnabled,
      Duration adaptiveInterval,
      Duration adaptiveWindow,
      double minSuccessRate,
      Duration maxMeanLatency,
      double stepUp,
      double minRate,
      int minCalls,
      Duration staleEntryAfter,
      Duration throttleRedisTimeout,
      boolean slowAloneHalves,
      Duration frontLineWait) {

    public FlowControl {
      throttleRedisTimeout =
          throttleRedisTimeout == null ? Duration.ofSeconds(2) : throttleRedisTimeout;
      frontLineWait =
          frontLineWait == null
              ? dev.questionflow.activities.lane.LaneLedgerActivities.DEFAULT_FRONT_LINE_WAIT
              : frontLineWait;
    }
  }

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
   * @param maxTokens {@code max_tokens} of every call to either model (null = 512)
   * @param promptCanary the system prompt's canary; blank = a random one per process
   * @param allowedLinkHosts hosts (and their subdomains) answers may link to; an answer with any
   *     other link is rejected
   */
  public record Llm(
      String baseUrl,
      String apiKey,
      String model,
      Duration timeout,
      String companyName,
      Backup backup,
      Duration rateLimitDefaultDelay,
      Duration rateLimitMaxDelay,
      Integer maxTokens,
      String promptCanary,
      List<String> allowedLinkHosts) {

    public Llm {
      maxTokens = maxTokens == null ? ModelSettings.DEFAULT_MAX_TOKENS : maxTokens;
      allowedLinkHosts = allowedLinkHosts == null ? List.of() : allowedLinkHosts;
    }

    /** The backup model; timeout null = the primary's. */
    public record Backup(String baseUrl, String apiKey, String model, Duration timeout) {}
  }

  /**
   * Circuit breakers per dependency and retrieval fallbacks.
   *
   * @param defaults breaker settings for every dependency ({@code cs.resilience.defaults}); unset
   *     fields = the SPEC's
   * @param breakers per-dependency overrides by id (primary-model, backup-model, embedding, redis,
   *     helpdesk)
   * @param retrieval time limits of the retrieval fallbacks and the size of the hot-entry cache
   */
  public record Resilience(
      dev.questionflow.activities.resilience.BreakerSettings defaults,
      Map<String, dev.questionflow.activities.resilience.BreakerSettings> breakers,
      dev.questionflow.activities.resilience.OutlierEjection ejection,
      Retrieval retrieval) {

    public record Retrieval(
        Duration semanticTimeout,
        Duration keywordTimeout,
        Integer hotCacheQuestions,
        Integer hotCacheEntries) {}
  }

  /**
   * @param url unset = every store in process memory; one Redis, a Sentinel group or a cluster
   *     (RedisTopology)
   * @param commandTimeout each Redis command's limit (and the connect timeout)
   * @param retryInterval after a failed connect, the next one is tried no sooner than this
   * @param tlsCa {@code REDIS_TLS_CA}: PEM file of the private CA behind a {@code rediss://}
   *     server's certificate (unset: the JDK's trusted CAs)
   * @param waitReplicas {@code REDIS_WAIT_REPLICAS}: replicas that must acknowledge a ticket or FAQ
   *     change write (WAIT); 0 = do not wait
   * @param waitTimeout {@code REDIS_WAIT_TIMEOUT}: how long such a write waits for them
   */
  public record Redis(
      String url,
      Duration commandTimeout,
      Duration retryInterval,
      java.nio.file.Path tlsCa,
      Integer waitReplicas,
      Duration waitTimeout) {
    public Redis {
      commandTimeout = commandTimeout == null ? Duration.ofSeconds(1) : commandTimeout;
      retryInterval = retryInterval == null ? Duration.ofSeconds(1) : retryInterval;
      waitReplicas = waitReplicas == null ? 0 : waitReplicas;
      waitTimeout = waitTimeout == null ? Duration.ofSeconds(1) : waitTimeout;
      if (waitReplicas < 0) {
        throw new IllegalArgumentException(
            "cs.redis.wait-replicas (REDIS_WAIT_REPLICAS) must be 0 (off) or more, not "
                + waitReplicas);
      }
      if (waitTimeout.isNegative() || waitTimeout.isZero()) {
        throw new IllegalArgumentException(
            "cs.redis.wait-timeout (REDIS_WAIT_TIMEOUT) must be positive, not " + waitTimeout);
      }
    }

    public boolean configured() {
      return url != null && !url.isBlank();
    }
  }

  /**
   * @param learning staff-learned phrasings and entries ({@code cs.faq.learning})
   * @param matchCacheSize recent questions whose semantic match is kept (null: 10,000; 0: off)
   */
  public record Faq(
      String pack,
      String indexDir,
      boolean semanticEnabled,
      Learning learning,
      Integer matchCacheSize) {

    /** The default of {@code cs.faq.match-cache-size}. */
    public static final int DEFAULT_MATCH_CACHE_SIZE = 10_000;

    /**
     * @param pollInterval how often each instance checks the change log for changes made on other
     *     instances (null: 1 s)
     */
    public record Learning(Duration pollInterval) {}

    public Duration learningPollInterval() {
      return learning == null || learning.pollInterval() == null
          ? Duration.ofSeconds(1)
          : learning.pollInterval();
    }

    public int matchCacheQuestions() {
      return matchCacheSize == null ? DEFAULT_MATCH_CACHE_SIZE : matchCacheSize;
    }
  }

  /**
   * @param webhookUrl the helpdesk's webhook; null or blank = tickets stay in the inbox
   * @param webhookSecret the HMAC key every delivery is signed with (required with a URL)
   * @param webhookAllowPlainHttp true to allow an http URL to another machine (null = false)
   */
  public record Tickets(
      Duration humanReplyWindow,
      String promisedReply,
      URI webhookUrl,
      Duration webhookTimeout,
      String webhookSecret,
      Boolean webhookAllowPlainHttp) {}

  /**
   * How a question walks down the ladder (frozen into each workflow's input).
   *
   * @param chainBudget processing budget of one question (SPEC: about 30 s)
   * @param criticalStages stages whose failure hands the question to a person instead of skipping
   *     them
   * @param deadLetterInitialBackoff first wait before redelivering a ticket the helpdesk did not
   *     take (doubles)
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
   * @param down dependencies forced down at start: breaker ids ({@code primary-model}, {@code
   *     backup-model}, {@code embedding}, {@code redis}, {@code helpdesk}: the breaker is held
   *     FORCED_OPEN) and {@code retrieval} (the retrieval stage fails, so answers are given without
   *     knowledge)
   */
  public record Drills(List<String> down) {
    public boolean isDown(String id) {
      return down != null && down.contains(id);
    }
  }

  /**
   * @param sseMaxPerVisitor open event streams of one web visitor
   * @param sseMaxPerCaller open event streams of one chat back end (for all its users), staff
   *     member or admin
   * @param sseMaxTotal open event streams of this instance
   * @param sseMaxPerAddress open event streams of the web visitors behind one client address (an
   *     IPv6 client's whole /64, which one subscriber usually holds)
   * @param sseTicketedPollInterval how often the stream of a question handed to a person reads its
   *     status (only a staff reply changes it; null = 10 s)
   * @param sseHeartbeat a comment line after this long without an event, so a client that went away
   *     is noticed
   * @param duplicateWindow a repeated submit within this window is answered without a call to
   *     Temporal
   * @param eagerStart ask Temporal for eager workflow start: the question's first workflow task
   *     comes back with the start call's answer, to this instance's worker (null = true)
   * @param maxBodySize the largest request body of the API (questions, replies, admin calls);
   *     larger is a 413 before the body is read (null = 64 KB)
   * @param codecMaxBodySize the largest body of the codec endpoint (null = 8 MB)
   */
  public record Api(
      Duration sseTimeout,
      Duration ssePollInterval,
      Integer sseMaxPerVisitor,
      Integer sseMaxPerCaller,
      Integer sseMaxTotal,
      Integer sseMaxPerAddress,
      Duration sseHeartbeat,
      Duration duplicateWindow,
      Boolean eagerStart,
      Duration sseTicketedPollInterval,
      DataSize maxBodySize,
      DataSize codecMaxBodySize) {

    public Api {
      sseTicketedPollInterval =
          sseTicketedPollInterval == null ? Duration.ofSeconds(10) : sseTicketedPollInterval;
      maxBodySize = maxBodySize == null ? DataSize.ofKilobytes(64) : maxBodySize;
      codecMaxBodySize = codecMaxBodySize == null ? DataSize.ofMegabytes(8) : codecMaxBodySize;
      eagerStart = eagerStart == null || eagerStart;
      sseMaxPerAddress = sseMaxPerAddress == null ? 60 : sseMaxPerAddress;
      sseHeartbeat = sseHeartbeat == null ? Duration.ofSeconds(20) : sseHeartbeat;
      duplicateWindow = duplicateWindow == null ? Duration.ofSeconds(60) : duplicateWindow;
      sseMaxPerVisitor = sseMaxPerVisitor == null ? 3 : sseMaxPerVisitor;
      sseMaxPerCaller = sseMaxPerCaller == null ? 500 : sseMaxPerCaller;
      sseMaxTotal = sseMaxTotal == null ? 2000 : sseMaxTotal;
    }
  }

  /**
   * Per-session order and conversation history (SPEC: last 10 turns, kept 30 minutes after the last
   * message).
   *
   * @param maxTurns turns kept in the history and given to the model as context (null = 10)
   * @param ttl how long a session's line and history are kept after its last message (null = 30
   *     min)
   */
  public record Sessions(Integer maxTurns, Duration ttl) {}
}
