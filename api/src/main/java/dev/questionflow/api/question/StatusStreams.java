package dev.questionflow.api.question;

import dev.questionflow.api.config.CsProperties;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import dev.questionflow.api.ratelimit.AccessLimitExceededException;
import dev.questionflow.api.ratelimit.AccessLimiter;
import dev.questionflow.api.security.Requester;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Server-Sent Events for a question: polls the workflow's status query (queries add nothing to the workflow
 * history) and sends an event only when something changed. The stream ends with the final answer (or when the
 * question failed). Open streams are capped per owner and per instance: each one holds a connection and polls.
 */
@Component
class StatusStreams {

  private static final Logger log = LoggerFactory.getLogger(StatusStreams.class);

  private final QuestionService questions;
  private final Duration timeout;
  private final Duration pollInterval;
  private final CsProperties.Api limits;
  private final ConcurrentHashMap<String, AtomicInteger> openPerOwner = new ConcurrentHashMap<>();
  private final AtomicInteger openTotal = new AtomicInteger();
  private final ScheduledExecutorService poller = Executors.newScheduledThreadPool(2, r -> {
    Thread thread = new Thread(r, "sse-status-poller");
    thread.setDaemon(true);
    return thread;
  });

  StatusStreams(QuestionService questions, CsProperties properties) {
    this.questions = questions;
    this.timeout = properties.api().sseTimeout();
    this.pollInterval = properties.api().ssePollInterval();
    this.limits = properties.api();
  }

  SseEmitter open(Requester requester, String workflowId, QuestionStatus first) {
    Runnable release = reserve(requester);
    SseEmitter emitter = new SseEmitter(timeout.toMillis());
    AtomicReference<QuestionStatus> last = new AtomicReference<>();
    AtomicReference<ScheduledFuture<?>> task = new AtomicReference<>();
    AtomicBoolean released = new AtomicBoolean();
    Runnable stop = () -> {
      ScheduledFuture<?> running = task.get();
      if (running != null) {
        running.cancel(false);
      }
      if (released.compareAndSet(false, true)) {
        release.run();
      }
    };
    emitter.onCompletion(stop);
    emitter.onTimeout(stop);
    emitter.onError(e -> stop.run());
    if (publish(emitter, last, first)) {
      stop.run();
      return emitter;
    }
    task.set(
        poller.scheduleWithFixedDelay(
            () -> {
              try {
                if (publish(emitter, last, questions.status(workflowId))) {
                  stop.run();
                }
              } catch (RuntimeException e) {
                log.debug("status stream for {} ended: {}", workflowId, e.toString());
                emitter.completeWithError(e);
                stop.run();
              }
            },
            pollInterval.toMillis(),
            pollInterval.toMillis(),
            java.util.concurrent.TimeUnit.MILLISECONDS));
    return emitter;
  }

  /** Counts a new stream of its owner, or refuses it with 429 (Retry-After: one poll's worth of waiting). */
  private Runnable reserve(Requester requester) {
    boolean visitor = requester.kind() == Requester.Kind.WEB_VISITOR;
    int perOwner = visitor ? limits.sseMaxPerVisitor() : limits.sseMaxPerCaller();
    String owner = requester.limitKey();
    AtomicInteger mine = openPerOwner.computeIfAbsent(owner, key -> new AtomicInteger());
    if (openTotal.incrementAndGet() > limits.sseMaxTotal()) {
      openTotal.decrementAndGet();
      throw new AccessLimitExceededException(AccessLimiter.Kind.STREAMS, 5);
    }
    if (mine.incrementAndGet() > perOwner) {
      mine.decrementAndGet();
      openTotal.decrementAndGet();
      throw new AccessLimitExceededException(AccessLimiter.Kind.STREAMS, 5);
    }
    return () -> {
      openTotal.decrementAndGet();
      if (mine.decrementAndGet() <= 0) {
        openPerOwner.remove(owner, mine);
      }
    };
  }

  /** Open streams of this instance (tests and diagnostics). */
  int open() {
    return openTotal.get();
  }

  /** Sends the status if it changed; returns true once the stream is finished. */
  private boolean publish(SseEmitter emitter, AtomicReference<QuestionStatus> last, QuestionStatus status) {
    if (Objects.equals(last.getAndSet(status), status)) {
      return false;
    }
    try {
      emitter.send(SseEmitter.event().name("status").data(status, MediaType.APPLICATION_JSON));
      if (isFinal(status)) {
        emitter.send(SseEmitter.event().name("answer").data(status.answer(), MediaType.APPLICATION_JSON));
        emitter.complete();
        return true;
      }
      if (status.stage() == Stage.FAILED) {
        emitter.complete();
        return true;
      }
      return false;
    } catch (IOException e) {
      emitter.completeWithError(e); // the client went away
      return true;
    }
  }

  /** TICKETED is not final: a person's reply may still come and end the stream. */
  private static boolean isFinal(QuestionStatus status) {
    return status.stage() == Stage.ANSWERED
        && status.answer() != null
        && status.answer().level() != AnswerLevel.TICKET;
  }

  @PreDestroy
  void shutdown() {
    poller.shutdownNow();
  }
}
