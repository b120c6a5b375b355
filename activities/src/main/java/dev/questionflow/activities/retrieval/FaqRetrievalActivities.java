package dev.questionflow.activities.retrieval;

import dev.questionflow.activities.resilience.Dependency;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.activities.resilience.UpstreamErrors.Kind;
import dev.questionflow.faq.FaqMatch;
import dev.questionflow.faq.FaqMatcher;
import dev.questionflow.workflows.retrieval.FaqHit;
import dev.questionflow.workflows.retrieval.RetrievalActivities;
import dev.questionflow.workflows.retrieval.RetrievalRequest;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retrieval over the FAQ pack, degrading in three steps, each with its own time limit so a fallback
 * can never hang:
 *
 * <ol>
 *   <li>the semantic matcher (L3, embedding model + Lucene), guarded by the {@link
 *       Dependency#EMBEDDING} circuit breaker (open = skipped at once) and the semantic timeout;
 *   <li>the keyword matcher (L4, Lucene BM25, no model) with the short keyword timeout; its
 *       abstention is an answer;
 *   <li>the {@link HotEntryCache} of entries the matchers answered recently, in memory (cannot
 *       hang).
 * </ol>
 *
 * {@link RetrievalResult#method()} says which one answered. When all three fail (keyword failed and
 * the cache has nothing), a retryable {@value #UNAVAILABLE} failure lets Temporal try once more
 * before the workflow continues without knowledge. Abstains (best = null) when no entry matches
 * confidently.
 */
public class FaqRetrievalActivities implements RetrievalActivities, AutoCloseable {

  /** The failure type when no retrieval level could answer. */
  public static final String UNAVAILABLE = "RetrievalUnavailable";

  private static final Logger log = LoggerFactory.getLogger(FaqRetrievalActivities.class);

  /**
   * @param semantic time limit of the semantic matcher; must leave room for the keyword fallback
   *     inside the stage's start-to-close timeout (1.5 s)
   * @param keyword time limit of the keyword matcher (SPEC: fallbacks about 200 ms)
   */
  public record Timeouts(Duration semantic, Duration keyword) {
    public static final Timeouts DEFAULT =
        new Timeouts(Duration.ofMillis(1000), Duration.ofMillis(200));
  }

  private final FaqMatcher semantic;
  private final FaqMatcher keyword;
  private final Timeouts timeouts;
  private final HotEntryCache hotCache;
  private final DependencyBreakers breakers;
  private final UpstreamErrors errors;
  private final ThreadPoolExecutor executor;

  /**
   * @param semantic null when the embedding model is disabled or could not load
   */
  public FaqRetrievalActivities(FaqMatcher semantic, FaqMatcher keyword) {
    this(
        semantic,
        keyword,
        Timeouts.DEFAULT,
        new HotEntryCache(1000, 100),
        DependencyBreakers.withSpecDefaults(),
        new UpstreamErrors(new SimpleMeterRegistry()));
  }

  /**
   * @param semantic null when the embedding model is disabled or could not load
   */
  public FaqRetrievalActivities(
      FaqMatcher semantic,
      FaqMatcher keyword,
      Timeouts timeouts,
      HotEntryCache hotCache,
      DependencyBreakers breakers,
      UpstreamErrors errors) {
    this.semantic = semantic;
    this.keyword = keyword;
    this.timeouts = timeouts == null ? Timeouts.DEFAULT : timeouts;
    this.hotCache = hotCache;
    this.breakers = breakers;
    this.errors = errors;
    AtomicInteger threads = new AtomicInteger();
    // bounded: a hanging matcher can hold at most 32 threads; beyond that a call is rejected and
    // counts as failed
    this.executor =
        new ThreadPoolExecutor(
            0,
            32,
            60,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            r -> {
              Thread t = new Thread(r, "faq-retrieval-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public RetrievalResult retrieveFaq(RetrievalRequest request) {
    if (semantic != null) {
      RetrievalResult result = trySemantic(request);
      if (result != null) {
        return result;
      }
    }
    try {
      RetrievalResult result = withTimeout(() -> retrieve(keyword, request), timeouts.keyword());
      hotCache.record(request.text(), result);
      return result;
    } catch (Exception e) {
      log.warn("keyword matcher failed ({}), trying the hot-entry cache", describe(e));
    }
    return hotCache
        .lookup(request.text(), request.topK())
        .orElseThrow(
            () ->
                ApplicationFailure.newFailure(
                    "semantic and keyword retrieval failed and the hot-entry cache has no match",
                    UNAVAILABLE));
  }

  /** The semantic result, or null to fall back to the keyword matcher. */
  private RetrievalResult trySemantic(RetrievalRequest request) {
    CircuitBreaker breaker = breakers.breaker(Dependency.EMBEDDING);
    if (!breaker.tryAcquirePermission()) {
      errors.record(Dependency.EMBEDDING, Kind.CIRCUIT_OPEN);
      log.debug("embedding breaker {}: skipping the semantic matcher", breaker.getState());
      return null;
    }
    long started = System.nanoTime();
    try {
      RetrievalResult result = withTimeout(() -> retrieve(semantic, request), timeouts.semantic());
      breaker.onSuccess(System.nanoTime() - started, TimeUnit.NANOSECONDS);
      hotCache.record(request.text(), result);
      return result;
    } catch (Exception e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      breaker.onError(System.nanoTime() - started, TimeUnit.NANOSECONDS, cause);
      errors.record(
          Dependency.EMBEDDING,
          e instanceof TimeoutException ? Kind.TIMEOUT : UpstreamErrors.classify(cause));
      log.warn("semantic matcher failed ({}), answering from the keyword matcher", describe(e));
      return null;
    }
  }

  private <T> T withTimeout(Callable<T> call, Duration timeout) throws Exception {
    Future<T> future;
    try {
      future = executor.submit(call);
    } catch (RejectedExecutionException e) {
      throw new IllegalStateException("too many retrieval calls hanging", e);
    }
    try {
      return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw e;
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw e;
    }
  }

  private static String describe(Exception e) {
    if (e instanceof TimeoutException) {
      return "timed out";
    }
    Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    return cause.toString();
  }

  private static RetrievalResult retrieve(FaqMatcher matcher, RetrievalRequest request) {
    List<FaqHit> hits =
        matcher.search(request.text(), request.topK()).stream()
            .map(FaqRetrievalActivities::hit)
            .toList();
    FaqHit best = matcher.best(request.text()).map(FaqRetrievalActivities::hit).orElse(null);
    return new RetrievalResult(hits, best, matcher.level());
  }

  private static FaqHit hit(FaqMatch match) {
    return new FaqHit(
        match.faqId(), match.entry().question(), match.entry().answer(), match.score());
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
