package dev.questionflow.api.question;

import dev.questionflow.activities.lane.LaneLedgerActivities;
import dev.questionflow.activities.status.PublishedStatus;
import dev.questionflow.activities.status.StatusStore;
import dev.questionflow.api.config.CsProperties;
import dev.questionflow.api.config.StatusStreamsProperties;
import dev.questionflow.api.role.Role;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * This instance's side of the published statuses: the questions its event streams watch, each with
 * the latest status published for it, and the streams told of each change. Its work scales with
 * changes, not with streams: a change is unsealed once per instance and handed to every stream of
 * that question; a lane's notice refreshes the positions of all waiting questions of that lane at
 * once (one ledger call, at most once per {@code sse-poll-interval}). A notice lost in a reconnect
 * is made up for by reading the watched questions' keys again when the subscription is back and
 * when a question was silent for {@code cs.status-streams.silence}.
 *
 * <p>A question it has no published status for (expired, never published, Redis down) is not
 * covered: its streams poll as before ({@link StatusStreams}), and are told when that changes.
 * Everything but the registrations runs on one thread of its own, so a question's statuses are
 * handled in order.
 */
@Component
class StatusHub implements StatusStore.Listener, StatusStreams.Feed {

  private static final Logger log = LoggerFactory.getLogger(StatusHub.class);

  private final StatusStore store;
  private final Function<String, PublishedStatus> published;
  private final Predicate<PublishedStatus> contradicted;
  private final boolean enabled;
  private final Duration silence;
  private final Predicate<PublishedStatus> receivedStillDue;
  private final Map<String, WatchedQuestion> watched = new ConcurrentHashMap<>();

  /** The waiting questions' places in line. */
  private final LanePlaces places;

  private final ScheduledExecutorService worker =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "status-hub");
            thread.setDaemon(true);
            return thread;
          });

  /**
   * Whether notices arrived at the last check; true at first, so that a subscription lost before
   * the first check still sends the streams that took it for live to polling.
   */
  private volatile boolean wasLive = true;

  @Autowired
  StatusHub(
      StatusStore store,
      PublishedStatuses published,
      StatusReads reads,
      LaneLedgerActivities lanes,
      CsProperties properties,
      StatusStreamsProperties streams,
      MeterRegistry meters,
      Environment environment) {
    this(
        store,
        published::latest,
        published::contradicted,
        reads.laneQueues(),
        lanes,
        // a worker-only instance serves no stream: it needs no subscription
        streams.enabled() && Role.of(environment).servesApi(),
        streams.silence(),
        published::receivedStillDue,
        properties.api().ssePollInterval(),
        meters);
  }

  /**
   * @param published a question's published status to go by, or null (see {@link
   *     PublishedStatuses#latest})
   * @param contradicted whether the workflow contradicted a published status (see {@link
   *     PublishedStatuses})
   * @param laneQueues the lanes a question may wait for
   * @param receivedStillDue whether the API's RECEIVED still counts as the status (see {@link
   *     PublishedStatuses#receivedStillDue})
   * @param laneRefresh notices of one lane within this are one refresh
   */
  StatusHub(
      StatusStore store,
      Function<String, PublishedStatus> published,
      Predicate<PublishedStatus> contradicted,
      List<String> laneQueues,
      LaneLedgerActivities lanes,
      boolean enabled,
      Duration silence,
      Predicate<PublishedStatus> receivedStillDue,
      Duration laneRefresh,
      MeterRegistry meters) {
    this.store = store;
    this.published = published;
    this.contradicted = contradicted;
    this.enabled = enabled;
    this.silence = silence;
    this.receivedStillDue = receivedStillDue;
    this.places = new LanePlaces(worker, laneQueues, lanes, laneRefresh, watched.values());
    Gauge.builder("cs_status_streamed_questions", watched, Map::size)
        .description("Questions this instance's event streams watch")
        .register(meters);
  }

  @PostConstruct
  void start() {
    if (!enabled) {
      return;
    }
    store.listen(this);
    long every = Math.min(1000, silence.toMillis());
    worker.scheduleWithFixedDelay(this::check, every, every, TimeUnit.MILLISECONDS);
  }

  @PreDestroy
  void stop() {
    worker.shutdownNow();
  }

  @Override
  public Runnable watch(String workflowId, StatusStreams.Watcher watcher) {
    if (!enabled) {
      return () -> {};
    }
    boolean[] added = {false};
    WatchedQuestion entry =
        watched.compute(
            workflowId,
            (id, current) -> {
              WatchedQuestion e = current == null ? new WatchedQuestion(id) : current;
              added[0] = current == null;
              e.watchers.add(watcher);
              return e;
            });
    worker.execute(
        () -> {
          if (!entry.read) {
            // a change published between the stream's first read and now is in the key: read once
            // per question, not per stream (a question's streams tend to open together)
            reread(entry);
          } else if (entry.shown != null) {
            watcher.deliver(entry.shown, entry.shownPublishedAt);
          } else if (!trusted(entry.latest)) {
            watcher.uncovered();
          }
        });
    return () ->
        watched.computeIfPresent(
            workflowId,
            (id, e) -> {
              e.watchers.remove(watcher);
              return e.watchers.isEmpty() ? null : e;
            });
  }

  @Override
  public boolean covers(String workflowId) {
    if (!enabled || !store.live()) {
      return false;
    }
    WatchedQuestion entry = watched.get(workflowId);
    return entry != null && trusted(entry.latest);
  }

  @Override
  public QuestionStatus shown(String workflowId) {
    WatchedQuestion entry = watched.get(workflowId);
    return entry != null && covers(workflowId) ? entry.shown : null;
  }

  /** A published status to go by (the API's RECEIVED only while a worker is due to publish). */
  private boolean trusted(PublishedStatus latest) {
    return latest != null && (latest.version() > 0 || receivedStillDue.test(latest));
  }

  // ---- what the store hears (on its thread: hand over, never block)

  @Override
  public void status(String workflowId, long version, Supplier<PublishedStatus> opened) {
    WatchedQuestion entry = watched.get(workflowId);
    if (entry == null) {
      return; // not streamed here: not even unsealed
    }
    worker.execute(
        () -> {
          PublishedStatus latest = entry.latest;
          if (latest != null && latest.version() >= version) {
            return;
          }
          try {
            accept(entry, opened.get());
          } catch (RuntimeException e) {
            log.warn("status of {} not readable: {}", workflowId, e.toString());
          }
        });
  }

  @Override
  public void lane(String lane, long atMillis) {
    places.laneChanged(lane, atMillis);
  }

  @Override
  public void subscribed() {
    worker.execute(
        () -> {
          log.info("status streams: (re)subscribed, reading {} watched questions", watched.size());
          watched.values().forEach(this::reread);
        });
  }

  // ---- on the hub's thread

  private void accept(WatchedQuestion entry, PublishedStatus published) {
    entry.latest = published;
    entry.heardAtMillis = System.currentTimeMillis();
    if (published.status().stage() == Stage.WAITING_IN_QUEUE) {
      // shown with its place, found together with the others' that joined a line meanwhile
      places.waiting(entry);
      return;
    }
    entry.show(published.status(), published.publishedAtMillis());
  }

  /** The question's key read again; its streams poll while it has none to go by. */
  private void reread(WatchedQuestion entry) {
    entry.read = true;
    entry.heardAtMillis = System.currentTimeMillis();
    PublishedStatus latest;
    try {
      latest = published.apply(entry.workflowId);
    } catch (RuntimeException e) {
      latest = null;
    }
    PublishedStatus known = entry.latest;
    if (latest != null && (known == null || latest.version() > known.version())) {
      accept(entry, latest);
      return;
    }
    if (latest == null && known != null && contradicted.test(known)) {
      // out of date after a Redis restart: what its streams show comes from Temporal until the
      // workflow publishes again
      entry.latest = null;
      entry.shown = null;
    }
    if (!trusted(entry.latest)) {
      entry.watchers.forEach(StatusStreams.Watcher::uncovered);
    }
  }

  /**
   * Once a second: streams go back to polling when the subscription is lost, and every watched
   * question's key is read when it is back; a question silent for longer than {@code silence} has
   * its key read.
   */
  private void check() {
    try {
      boolean live = store.live();
      if (live != wasLive) {
        wasLive = live;
        log.info(
            "status streams: notices {}",
            live ? "arrive again" : "do not arrive, streams poll until they do");
        if (!live) {
          watched.values().forEach(e -> e.watchers.forEach(StatusStreams.Watcher::uncovered));
          return;
        }
      }
      if (!live) {
        return;
      }
      long now = System.currentTimeMillis();
      for (WatchedQuestion entry : watched.values()) {
        if (now - entry.heardAtMillis >= silence.toMillis()) {
          reread(entry);
        }
      }
    } catch (RuntimeException e) {
      log.warn("status streams: check failed: {}", e.toString());
    }
  }
}
