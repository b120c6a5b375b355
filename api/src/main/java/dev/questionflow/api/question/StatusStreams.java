package dev.questionflow.api.question;

import dev.questionflow.api.config.CsProperties;
import dev.questionflow.api.security.Requester;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Server-Sent Events for a question: takes each change of its status from the statuses its workers
 * publish ({@link Feed}, {@link StatusHub}: no read per stream; an event that carries a published
 * change has a {@code : published <epoch ms>} comment line), or, for a question the feed does not
 * cover (no published status, Redis down, publishing off), polls its status (see StatusReads: no
 * workflow task per poll); sends an event only when something changed. The stream ends with the
 * final answer (or when the question failed); a quick answer whose caller asked for an upgrade is
 * sent as it comes, and the stream stays open for the fuller one (revision 2) or until the upgrade
 * is given up. Open streams are capped per owner and per instance (web visitors: half of it, and
 * per address, IPv6 by its /64): each one holds a connection and polls. A handed-over (TICKETED)
 * question's stream polls every {@code sse-ticketed-poll-interval} (10 s) only.
 */
@Component
class StatusStreams {

  private static final Logger log = LoggerFactory.getLogger(StatusStreams.class);

  private final Function<String, QuestionStatus> statuses;
  private final Feed feed;

  /** The events it sends (status, answer, keep-alive). */
  private final StatusEvents events;

  private final Duration timeout;
  private final Duration pollInterval;
  private final Duration ticketedPollInterval;

  private final Duration heartbeat;

  /** Open streams per instance, owner and address. */
  private final StreamCaps caps;

  /** Published changes of the questions streamed here ({@link StatusHub}). */
  interface Feed {
    /** Tells {@code watcher} of the question's changes from now on; returns what stops that. */
    Runnable watch(String workflowId, Watcher watcher);

    /** Whether the question's changes come through the feed now (else its streams poll). */
    boolean covers(String workflowId);

    /**
     * What the question's streams here are shown now, if the feed covers it (a stream opening
     * beside them starts from it instead of a read), else null.
     */
    default QuestionStatus shown(String workflowId) {
      return null;
    }

    /** No feed: every stream polls. */
    Feed NONE =
        new Feed() {
          @Override
          public Runnable watch(String workflowId, Watcher watcher) {
            return () -> {};
          }

          @Override
          public boolean covers(String workflowId) {
            return false;
          }
        };
  }

  /** A stream, as the feed sees it. */
  interface Watcher {
    /** The question's status changed (published at {@code publishedAtMillis}, epoch ms). */
    void deliver(QuestionStatus status, long publishedAtMillis);

    /** The feed stopped covering the question: poll now. */
    void uncovered();
  }

  private record Delivery(QuestionStatus status, long publishedAtMillis) {}

  /** Runs each stream's next poll after a delay (a test runs them by hand). */
  interface Scheduler {
    Future<?> schedule(Runnable task, Duration delay);
  }

  private final StreamThreads threads;
  private final LongSupplier nanoTime;

  @Autowired
  StatusStreams(
      QuestionService questions, CsProperties properties, StatusHub hub, JsonMapper json) {
    this(questions::status, hub, properties.api(), null, System::nanoTime, json);
  }

  /**
   * @param scheduler null: a pool of two daemon threads
   * @param nanoTime the clock of polls and heartbeats ({@link System#nanoTime} outside tests)
   */
  StatusStreams(
      Function<String, QuestionStatus> statuses,
      CsProperties.Api api,
      Scheduler scheduler,
      LongSupplier nanoTime) {
    this(statuses, Feed.NONE, api, scheduler, nanoTime);
  }

  /**
   * @param feed published changes (a covered question's stream does not poll)
   */
  StatusStreams(
      Function<String, QuestionStatus> statuses,
      Feed feed,
      CsProperties.Api api,
      Scheduler scheduler,
      LongSupplier nanoTime) {
    this(statuses, feed, api, scheduler, nanoTime, JsonMapper.builder().build());
  }

  /**
   * @param json the app's JSON mapper (the same output as the status endpoint's)
   */
  private StatusStreams(
      Function<String, QuestionStatus> statuses,
      Feed feed,
      CsProperties.Api api,
      Scheduler scheduler,
      LongSupplier nanoTime,
      JsonMapper json) {
    this.statuses = statuses;
    this.feed = feed;
    this.timeout = api.sseTimeout();
    this.pollInterval = api.ssePollInterval();
    this.ticketedPollInterval = api.sseTicketedPollInterval();
    this.caps = new StreamCaps(api);
    this.heartbeat = api.sseHeartbeat();
    this.nanoTime = nanoTime;
    this.events = new StatusEvents(json, heartbeat, nanoTime);
    this.threads = new StreamThreads(scheduler);
  }

  /**
   * @param clientAddress the client's address for a web visitor's stream (capped per address too),
   *     else null
   */
  SseEmitter open(
      Requester requester, String clientAddress, String workflowId, QuestionStatus first) {
    Runnable release = caps.reserve(requester, clientAddress);
    SseEmitter emitter = new SseEmitter(timeout.toMillis());
    Watch watch = new Watch(emitter, workflowId, release);
    emitter.onCompletion(watch::stop);
    emitter.onTimeout(watch::stop);
    emitter.onError(e -> watch.stop());
    watch.start(first);
    return emitter;
  }

  /**
   * One open stream: each run reads the status when a poll is due and the feed does not cover the
   * question, sends it if it changed, sends a heartbeat when the stream was quiet, and schedules
   * the next run for whichever comes first (a covered stream: its heartbeat only). Published
   * changes come through {@link #deliver}. Runs and deliveries of one stream never overlap (one
   * lock), and one chain of runs is scheduled at a time (a run of an older chain does nothing).
   */
  private final class Watch implements Watcher {

    private final SseEmitter emitter;
    private final String workflowId;
    private final Runnable release;
    private final AtomicReference<QuestionStatus> last = new AtomicReference<>();
    private final AtomicLong lastSent = new AtomicLong(nanoTime.getAsLong());
    private final AtomicReference<Future<?>> next = new AtomicReference<>();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private volatile long nextPoll;
    private volatile Runnable unwatch = () -> {};

    /** The newest published change not sent yet. */
    private final AtomicReference<Delivery> pending = new AtomicReference<>();

    /** The chain of runs that counts (see {@link #scheduleNext}). */
    private long chain;

    Watch(SseEmitter emitter, String workflowId, Runnable release) {
      this.emitter = emitter;
      this.workflowId = workflowId;
      this.release = release;
    }

    synchronized void start(QuestionStatus first) {
      if (events.publish(emitter, last, lastSent, first, null)) {
        stop();
        return;
      }
      nextPoll = nanoTime.getAsLong() + pollIntervalFor(first).toNanos();
      unwatch = feed.watch(workflowId, this);
      scheduleNext();
    }

    private synchronized void run(long ofChain) {
      if (stopped.get() || ofChain != chain) {
        return;
      }
      try {
        if (!feed.covers(workflowId) && nanoTime.getAsLong() - nextPoll >= 0) {
          QuestionStatus status = statuses.apply(workflowId);
          if (events.publish(emitter, last, lastSent, status, null)) {
            stop();
            return;
          }
          nextPoll = nanoTime.getAsLong() + pollIntervalFor(status).toNanos();
        }
        if (!events.heartbeatIfQuiet(emitter, lastSent)) {
          stop();
          return;
        }
      } catch (RuntimeException e) {
        log.debug("status stream for {} ended: {}", workflowId, e.toString());
        emitter.completeWithError(e);
        stop();
        return;
      }
      scheduleNext();
    }

    @Override
    public void deliver(QuestionStatus status, long publishedAtMillis) {
      // the newest only: a stream that is behind skips to it (a place it passed is news to no one)
      Delivery previous = pending.getAndSet(new Delivery(status, publishedAtMillis));
      if (status.stage() != Stage.WAITING_IN_QUEUE) {
        // a stage change or an answer goes ahead of the places queued for other streams (a send
        // that finds nothing pending does nothing)
        threads.changeSenders.execute(this::sendPending);
      } else if (previous == null) {
        threads.senders.execute(this::sendPending);
      }
    }

    private synchronized void sendPending() {
      Delivery delivery = pending.getAndSet(null);
      if (delivery == null || stopped.get()) {
        return;
      }
      if (events.publish(
          emitter, last, lastSent, delivery.status(), delivery.publishedAtMillis())) {
        stop();
      }
    }

    @Override
    public synchronized void uncovered() {
      if (stopped.get()) {
        return;
      }
      nextPoll = nanoTime.getAsLong(); // due now
      scheduleNext();
    }

    /**
     * The next poll (unless the feed covers the question), or the next heartbeat if the stream
     * would be quiet for longer; the run scheduled before is void.
     */
    private void scheduleNext() {
      if (stopped.get()) {
        return;
      }
      long now = nanoTime.getAsLong();
      long untilHeartbeat = lastSent.get() + heartbeat.toNanos() - now;
      long untilPoll = feed.covers(workflowId) ? untilHeartbeat : nextPoll - now;
      long delay = Math.max(1_000_000L, Math.min(untilPoll, untilHeartbeat)); // at least 1 ms
      long ofChain = ++chain;
      Future<?> previous =
          next.getAndSet(threads.scheduler.schedule(() -> run(ofChain), Duration.ofNanos(delay)));
      if (previous != null) {
        previous.cancel(false);
      }
    }

    void stop() {
      if (stopped.compareAndSet(false, true)) {
        Future<?> running = next.get();
        if (running != null) {
          running.cancel(false);
        }
        unwatch.run();
        release.run();
      }
    }
  }

  /**
   * A question handed to a person (TICKETED) changes only when a staff reply is signalled, and its
   * stream may stay open for {@code sse-timeout} and be reopened: reading it 4 times a second would
   * cost Temporal far more than the news is worth.
   */
  private Duration pollIntervalFor(QuestionStatus status) {
    return status != null
            && status.stage() == Stage.TICKETED
            && ticketedPollInterval.compareTo(pollInterval) > 0
        ? ticketedPollInterval
        : pollInterval;
  }

  /**
   * The status a new stream of the question starts from without a read, when this instance's other
   * streams of it are shown its published changes; else null (read it).
   */
  QuestionStatus shown(String workflowId) {
    return feed.shown(workflowId);
  }

  /** Open streams of this instance (tests and diagnostics). */
  int open() {
    return caps.open();
  }

  @PreDestroy
  void shutdown() {
    threads.shutdown();
  }
}
