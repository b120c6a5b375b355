package dev.questionflow.activities.generation;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import dev.questionflow.activities.generation.ModelErrors.ModelError;
import dev.questionflow.activities.resilience.Dependency;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.activities.resilience.UpstreamErrors.Kind;
import dev.questionflow.activities.session.SessionStore;
import dev.questionflow.activities.session.Turn;
import dev.questionflow.workflows.generation.GenerationActivities;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.generation.ModelFailures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Generation through langchain4j's OpenAI-compatible client (OpenAI, Qwen/DashScope, vLLM,
 * Ollama...), with one client and one circuit breaker per configured model (primary, optional
 * backup; the request says which).
 *
 * <ul>
 *   <li>The client's own retries are off ({@code maxRetries(0)}): Temporal's retry policy is the
 *       only retry loop.
 *   <li>Every failure is thrown as an {@link ApplicationFailure} whose type is one of {@link
 *       ModelFailures}; which types Temporal retries is declared in application.yml ({@code
 *       non-retryable-error-types}), and the non-retryable ones are also flagged as such here. A
 *       429 carries the server's Retry-After as the next retry delay. A primary's server error or
 *       unreachable model is not retried while the backup can answer: the workflow asks the backup
 *       next, which is sooner for the customer than another wait in the primary's line.
 *   <li>Breaker OPEN: {@link ModelFailures#CIRCUIT_OPEN}, non-retryable, without any HTTP call, so
 *       the workflow falls to the FAQ level without paying a timeout.
 *   <li>The question and the history turns are redacted and fenced before they leave for the model
 *       ({@link PromptBuilder}), and every call asks for at most {@link ModelSettings#maxTokens()};
 *       the answer goes through {@link OutputChecks} (empty, garbled, prompt-leaking output and
 *       foreign links rejected, personal data redacted).
 *   <li>The session's last turns ({@link SessionStore#history}, at most {@code
 *       cs.sessions.max-turns}) go before the question as previous user / assistant messages; when
 *       the history cannot be read the model answers without it.
 * </ul>
 */
public class OpenAiGenerationActivities implements GenerationActivities {

  private static final Logger log = LoggerFactory.getLogger(OpenAiGenerationActivities.class);

  /** One configured model: its settings, client and breaker. */
  private record Model(
      String role, Dependency dependency, ModelSettings settings, ChatModel client) {}

  private final PromptBuilder prompts;
  private final OutputChecks outputChecks;
  private final Model primary;
  private final Model backup;
  private final RateLimitPolicy rateLimits;
  private final DependencyBreakers breakers;
  private final UpstreamErrors errors;

  /** the session history for context; null = none */
  private final SessionStore sessions;

  private final ModelCallGate gate;
  private final ModelUsage usage;

  /** Primary model only, the SPEC's breaker settings, metrics in a private registry. */
  public OpenAiGenerationActivities(ModelSettings primary) {
    this(
        primary,
        null,
        RateLimitPolicy.DEFAULT,
        DependencyBreakers.withSpecDefaults(),
        new UpstreamErrors(new SimpleMeterRegistry()));
  }

  /**
   * @param primary the main model; not configured (blank base URL) = every request reports
   *     NOT_CONFIGURED
   * @param backup the backup model, or null / not configured: backup requests report NOT_CONFIGURED
   */
  public OpenAiGenerationActivities(
      ModelSettings primary,
      ModelSettings backup,
      RateLimitPolicy rateLimits,
      DependencyBreakers breakers,
      UpstreamErrors errors) {
    this(primary, backup, rateLimits, breakers, errors, null);
  }

  /**
   * @param sessions where the session's previous turns are read from; null = questions without
   *     history
   */
  public OpenAiGenerationActivities(
      ModelSettings primary,
      ModelSettings backup,
      RateLimitPolicy rateLimits,
      DependencyBreakers breakers,
      UpstreamErrors errors,
      SessionStore sessions) {
    this(
        primary,
        backup,
        rateLimits,
        breakers,
        errors,
        sessions,
        ModelCallGate.OPEN,
        Safeguards.defaults(),
        null);
  }

  /**
   * @param gate runs around every model call (the lanes' throttle and statistics)
   * @param safeguards the redactor, the system prompt's canary and the hosts answers may link to
   * @param usage counts the tokens every response reports (null: not counted)
   */
  public OpenAiGenerationActivities(
      ModelSettings primary,
      ModelSettings backup,
      RateLimitPolicy rateLimits,
      DependencyBreakers breakers,
      UpstreamErrors errors,
      SessionStore sessions,
      ModelCallGate gate,
      Safeguards safeguards,
      ModelUsage usage) {
    this.usage = usage == null ? ModelUsage.unmetered() : usage;
    this.sessions = sessions;
    this.gate = gate == null ? ModelCallGate.OPEN : gate;
    this.prompts =
        new PromptBuilder(primary.companyName(), safeguards.redactor(), safeguards.canary());
    this.outputChecks = new OutputChecks(safeguards);
    this.primary = model(ModelFailures.PRIMARY, Dependency.PRIMARY_MODEL, primary);
    this.backup = model(ModelFailures.BACKUP, Dependency.BACKUP_MODEL, backup);
    this.rateLimits = rateLimits == null ? RateLimitPolicy.DEFAULT : rateLimits;
    this.breakers = breakers;
    this.errors = errors;
    if (this.primary == null) {
      log.info(
          "LLM_BASE_URL is not set: the generation stage reports 'not configured' and answers come from the FAQ");
    }
    if (this.backup != null) {
      log.info("backup model configured: {} at {}", backup.modelName(), backup.baseUrl());
    }
  }

  private static Model model(String role, Dependency dependency, ModelSettings settings) {
    if (settings == null || !settings.configured()) {
      return null;
    }
    return new Model(role, dependency, settings, settings.client());
  }

  /**
   * The models that cannot answer now: not configured, or their breaker refuses calls. Asked
   * through the breaker's own permission (taken and given back at once), so an OPEN breaker whose
   * wait is over turns HALF_OPEN and the next question probes the model.
   */
  public Map<String, String> modelsDown() {
    Map<String, String> down = new HashMap<>(2);
    String primaryDown = whyDown(primary);
    if (primaryDown != null) {
      down.put(ModelFailures.PRIMARY, primaryDown);
    }
    String backupDown = whyDown(backup);
    if (backupDown != null) {
      down.put(ModelFailures.BACKUP, backupDown);
    }
    return down;
  }

  private ModelHealth health(Model model) {
    return new ModelHealth(
        breakers.breaker(model.dependency()), breakers.ejection(model.dependency()));
  }

  /** Why the model cannot answer now, or null when it may. */
  private String whyDown(Model model) {
    if (model == null) {
      return GenerationResult.NOT_CONFIGURED_REASON;
    }
    ModelHealth breaker = health(model);
    if (!breaker.tryAcquirePermission()) {
      return ModelFailures.CIRCUIT_OPEN;
    }
    breaker.releasePermission();
    return null;
  }

  @Override
  public GenerationResult generateAnswer(GenerationRequest request) {
    Model model =
        switch (request.model()) {
          case ModelFailures.PRIMARY -> primary;
          case ModelFailures.BACKUP -> backup;
          default ->
              throw ApplicationFailure.newNonRetryableFailure(
                  "unknown model '" + request.model() + "', expected primary or backup",
                  ModelFailures.BAD_REQUEST);
        };
    if (model == null) {
      gate.notCalled();
      return GenerationResult.notConfigured();
    }
    List<Turn> history = history(request.sessionId()); // read before taking a breaker permission
    ModelHealth breaker = health(model);
    if (!breaker.tryAcquirePermission()) {
      gate.notCalled();
      errors.record(model.dependency(), Kind.CIRCUIT_OPEN);
      throw ApplicationFailure.newNonRetryableFailure(
          "the " + model.role() + " model's " + breaker.refusal() + ": not calling it",
          ModelFailures.CIRCUIT_OPEN);
    }
    var messages = prompts.messages(request.knowledge(), history, request.question());
    AttemptLimit attempt = AttemptLimit.current();
    try {
      gate.beforeCall(request.queueDeadlineEpochMillis(), attempt.lastStartEpochMillis());
    } catch (ModelCallGate.AttemptEnding e) {
      breaker.releasePermission(); // not asked: back to the line for the next attempt
      throw ApplicationFailure.newFailure(e.getMessage(), ModelFailures.ATTEMPT_ENDING);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      breaker.releasePermission();
      throw ApplicationFailure.newFailureWithCause(
          "interrupted while waiting for the model lane", "Interrupted", e);
    } catch (ModelCallGate.DeadlinePassed e) {
      breaker.releasePermission(); // the model was not asked: no mark either way
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), ModelFailures.QUEUE_DEADLINE);
    } catch (RuntimeException e) {
      breaker.releasePermission(); // cancelled while waiting (the heartbeat said so)
      throw e;
    }
    long started = System.nanoTime();
    long budget = attempt.callBudgetMillis(request.callBudgetMillis());
    ChatResponse response;
    try {
      response = BudgetedChat.chat(model.client(), messages, model.settings().timeout(), budget);
    } catch (BudgetedChat.OverBudget e) {
      gate.afterCall(false, elapsedMillis(started));
      breaker.onError(System.nanoTime() - started, TimeUnit.NANOSECONDS, e);
      errors.record(model.dependency(), Kind.TIMEOUT);
      throw attempt.abandoned(model.role(), request.callBudgetMillis(), budget);
    } catch (RuntimeException e) {
      gate.afterCall(!ModelErrors.classify(e).countsAgainstHealth(), elapsedMillis(started));
      throw failed(model, breaker, started, e);
    }
    // paid for whatever the checks below make of it
    TokenUsage tokens = response.tokenUsage();
    Integer promptTokens = tokens == null ? null : tokens.inputTokenCount();
    Integer completionTokens = tokens == null ? null : tokens.outputTokenCount();
    Double cost = usage.record(model.settings().modelName(), promptTokens, completionTokens);
    boolean garbled =
        response.finishReason() != FinishReason.CONTENT_FILTER
            && OutputChecks.isGarbled(
                response.aiMessage() == null ? null : response.aiMessage().text());
    gate.afterCall(!garbled, elapsedMillis(started));
    if (response.finishReason() == FinishReason.CONTENT_FILTER) {
      breaker.releasePermission(); // the model is fine; the question or answer was filtered
      errors.record(model.dependency(), Kind.CONTENT_POLICY);
      throw ApplicationFailure.newNonRetryableFailure(
          "the " + model.role() + " model's answer was stopped by its content filter",
          ModelFailures.CONTENT_POLICY);
    }
    String text;
    try {
      text = outputChecks.check(response.aiMessage() == null ? null : response.aiMessage().text());
    } catch (OutputChecks.Rejected rejected) {
      switch (rejected.type()) {
        case ModelFailures.GARBLED_OUTPUT -> {
          // garbage from a model that answers 200 is a sick model: count it, so the breaker can
          // open
          breaker.onError(System.nanoTime() - started, TimeUnit.NANOSECONDS, rejected);
          errors.record(model.dependency(), Kind.GARBLED_OUTPUT);
        }
        case ModelFailures.PROMPT_LEAK, ModelFailures.FOREIGN_LINK -> {
          // the question talked a healthy model into it: no mark against the model's health
          breaker.releasePermission();
          errors.record(
              model.dependency(),
              ModelFailures.PROMPT_LEAK.equals(rejected.type())
                  ? Kind.PROMPT_LEAK
                  : Kind.FOREIGN_LINK);
          log.warn("the {} model's answer was rejected: {}", model.role(), rejected.getMessage());
        }
        default -> {
          // an empty answer is usually about this question (filtered silently, nothing to say),
          // not the model's health
          breaker.releasePermission();
          errors.record(model.dependency(), Kind.EMPTY_OUTPUT);
        }
      }
      throw ApplicationFailure.newNonRetryableFailure(rejected.getMessage(), rejected.type());
    }
    breaker.onSuccess(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    return new GenerationResult(
        GenerationResult.Outcome.ANSWERED,
        text,
        model.settings().modelName(),
        promptTokens,
        completionTokens,
        cost);
  }

  private static long elapsedMillis(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1_000_000;
  }

  private ApplicationFailure failed(
      Model model, ModelHealth breaker, long started, RuntimeException e) {
    ModelError error = ModelErrors.classify(e);
    if (error.countsAgainstHealth()) {
      breaker.onError(System.nanoTime() - started, TimeUnit.NANOSECONDS, e);
    } else {
      breaker.releasePermission(); // neither a success nor a failure of the model (see ModelErrors)
    }
    errors.record(model.dependency(), error.kind());
    String message =
        "the "
            + model.role()
            + " model ("
            + model.settings().modelName()
            + ") failed: "
            + error.kind().tag()
            + " ("
            + e.getClass().getSimpleName()
            + ": "
            + abbreviate(e.getMessage())
            + ")";
    log.warn(message);
    if (!error.retryable()) {
      return ApplicationFailure.newNonRetryableFailureWithCause(message, error.type(), e);
    }
    if (ModelFailures.RATE_LIMITED.equals(error.type())) {
      Duration delay = error.retryAfter() != null ? error.retryAfter() : rateLimits.defaultDelay();
      if (delay.compareTo(rateLimits.maxDelay()) > 0) {
        return ApplicationFailure.newNonRetryableFailureWithCause(
            message
                + "; Retry-After "
                + delay.toMillis()
                + " ms exceeds "
                + rateLimits.maxDelay().toMillis()
                + " ms, degrading now",
            error.type(),
            e);
      }
      return ApplicationFailure.newFailureWithCauseAndDelay(
          message + "; retry after " + delay.toMillis() + " ms", error.type(), e, delay);
    }
    if (model == primary && whyDown(backup) == null) {
      // the backup is the retry: another attempt here would wait in the primary's line again,
      // while the customer's deadline runs (the workflow asks the backup next)
      return ApplicationFailure.newNonRetryableFailureWithCause(
          message + "; the backup model answers instead", error.type(), e);
    }
    return ApplicationFailure.newFailureWithCause(message, error.type(), e);
  }

  /**
   * The session's last turns, at most cs.sessions.max-turns; none without a session or when they
   * cannot be read.
   */
  private List<Turn> history(String sessionId) {
    if (sessions == null || sessionId == null || sessionId.isBlank()) {
      return List.of();
    }
    try {
      List<Turn> turns = sessions.history(sessionId);
      int max = sessions.limits().maxTurns();
      return turns.size() > max ? turns.subList(turns.size() - max, turns.size()) : turns;
    } catch (RuntimeException e) {
      log.warn(
          "session {}: history unavailable ({}: {}), answering without it",
          sessionId,
          e.getClass().getSimpleName(),
          abbreviate(e.getMessage()));
      return List.of();
    }
  }

  private static String abbreviate(String s) {
    if (s == null) {
      return "";
    }
    String oneLine = s.replaceAll("\\s+", " ");
    return oneLine.length() > 300 ? oneLine.substring(0, 300) + "..." : oneLine;
  }
}
