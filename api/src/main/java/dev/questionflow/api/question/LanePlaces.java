package dev.questionflow.api.question;

import dev.questionflow.activities.lane.LaneLedgerActivities;
import dev.questionflow.activities.status.PublishedStatus;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The places in line of the questions {@link StatusHub} watches while they are published as
 * waiting: found a few ledger calls per lane for all of them, when they join a line and when a
 * lane's notice says the line moved (at most once per {@code sse-poll-interval} per lane). Apart
 * from the hub because it is the hub's only talk with the lane ledger, with bookkeeping of its own
 * (lanes noticed, last refreshes, questions not yet placed). Runs on the hub's thread.
 */
final class LanePlaces {

  // the hub's name: its log lines keep their logger
  private static final Logger log = LoggerFactory.getLogger(StatusHub.class);

  private final ScheduledExecutorService worker;
  private final List<String> laneQueues;
  private final LaneLedgerActivities lanes;
  private final Duration laneRefresh;
  private final Collection<WatchedQuestion> watched;

  /** Lanes with a notice not yet acted on, and the earliest notice's time (epoch ms). */
  private final Map<String, Long> lanesChanged = new ConcurrentHashMap<>();

  /** When each lane was last refreshed (epoch ms). */
  private final Map<String, Long> lastRefresh = new ConcurrentHashMap<>();

  /** Questions published as waiting, not yet shown with their place (the hub's thread only). */
  private final Set<WatchedQuestion> unplaced = new LinkedHashSet<>();

  /** Whether {@link #placeUnplaced} is due (the hub's thread only). */
  private boolean placing;

  /**
   * @param worker the hub's thread
   * @param laneQueues the lanes a question may wait for
   * @param laneRefresh notices of one lane within this are one refresh
   * @param watched the hub's watched questions (a live view)
   */
  LanePlaces(
      ScheduledExecutorService worker,
      List<String> laneQueues,
      LaneLedgerActivities lanes,
      Duration laneRefresh,
      Collection<WatchedQuestion> watched) {
    this.worker = worker;
    this.laneQueues = laneQueues;
    this.lanes = lanes;
    this.laneRefresh = laneRefresh;
    this.watched = watched;
  }

  /** A lane's notice (on the store's thread: hands over, never blocks). */
  void laneChanged(String lane, long atMillis) {
    if (lanesChanged.putIfAbsent(lane, atMillis) == null) {
      // at once, unless the lane was refreshed within the interval: then when it ends (the notices
      // meanwhile are one refresh), so a busy lane costs at most one refresh per interval
      long last = lastRefresh.getOrDefault(lane, 0L);
      long delay = Math.max(0, last + laneRefresh.toMillis() - System.currentTimeMillis());
      worker.schedule(() -> refresh(lane), delay, TimeUnit.MILLISECONDS);
    }
  }

  /** A question published as waiting: shown once its place is found (on the hub's thread). */
  void waiting(WatchedQuestion entry) {
    unplaced.add(entry);
    if (!placing) {
      placing = true;
      worker.execute(this::placeUnplaced);
    }
  }

  /**
   * The questions published as waiting since the last run, each with its place in the line it waits
   * in: a few ledger calls per lane for all of them, not a few per question (when a line forms,
   * hundreds join it within seconds, and this thread carries every stream's changes).
   */
  private void placeUnplaced() {
    placing = false;
    List<WatchedQuestion> left = new ArrayList<>();
    for (WatchedQuestion entry : unplaced) {
      if (entry.latest.status().stage() == Stage.WAITING_IN_QUEUE) {
        left.add(entry); // else it moved on before it was placed
      }
    }
    unplaced.clear();
    try {
      for (String lane : laneQueues) {
        if (left.isEmpty()) {
          break;
        }
        Map<String, LaneSnapshot> places =
            lanes.snapshotsIfWaiting(lane, left.stream().map(entry -> entry.workflowId).toList());
        if (places.isEmpty()) {
          continue;
        }
        List<WatchedQuestion> inLane =
            left.stream().filter(entry -> places.containsKey(entry.workflowId)).toList();
        long[] deadlines =
            lanes.deadlinesIn(lane, inLane.stream().map(entry -> entry.workflowId).toList());
        for (int i = 0; i < deadlines.length; i++) {
          WatchedQuestion entry = inLane.get(i);
          entry.lane = lane;
          entry.deadline = deadlines[i];
          entry.show(
              place(entry, entry.latest.status(), places.get(entry.workflowId)),
              entry.latest.publishedAtMillis());
        }
        left.removeAll(inLane);
      }
      for (WatchedQuestion entry : left) {
        entry.show(
            StatusReads.leftTheLine(entry.latest.status()), entry.latest.publishedAtMillis());
      }
    } catch (RuntimeException e) {
      log.debug("lane ledger unavailable: {}", e.toString());
      for (WatchedQuestion entry : left) {
        entry.show(entry.latest.status(), entry.latest.publishedAtMillis());
      }
    }
  }

  private static QuestionStatus place(
      WatchedQuestion entry, QuestionStatus published, LaneSnapshot snapshot) {
    return QuestionStatus.waiting(
            entry.workflowId, snapshot.position(), snapshot.etaSeconds(), published.intent())
        .withDeadline(entry.deadline);
  }

  /**
   * A lane's line changed: every watched question published as waiting for it gets its place, all
   * of them from one ledger call; one no longer in it has had its call start.
   */
  private void refresh(String lane) {
    lastRefresh.put(lane, System.currentTimeMillis());
    Long noticed = lanesChanged.remove(lane);
    long at = noticed == null ? System.currentTimeMillis() : noticed;
    List<WatchedQuestion> inLine = new ArrayList<>();
    for (WatchedQuestion entry : watched) {
      PublishedStatus latest = entry.latest;
      if (latest != null
          && latest.status().stage() == Stage.WAITING_IN_QUEUE
          && (entry.lane == null || entry.lane.equals(lane))) {
        inLine.add(entry);
      }
    }
    if (inLine.isEmpty()) {
      return;
    }
    Map<String, LaneSnapshot> places;
    try {
      places =
          lanes.snapshotsIfWaiting(lane, inLine.stream().map(entry -> entry.workflowId).toList());
    } catch (RuntimeException e) {
      log.debug("lane {}: positions unavailable: {}", lane, e.toString());
      return;
    }
    long now = System.currentTimeMillis();
    for (WatchedQuestion entry : inLine) {
      LaneSnapshot snapshot = places.get(entry.workflowId);
      QuestionStatus published = entry.latest.status();
      if (snapshot != null) {
        entry.lane = lane;
        entry.heardAtMillis = now;
        entry.show(place(entry, published, snapshot), at);
      } else if (lane.equals(entry.lane)) {
        entry.heardAtMillis = now;
        entry.show(StatusReads.leftTheLine(published), at);
      }
    }
  }
}
