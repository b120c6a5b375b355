package dev.questionflow.activities.lane;

import dev.questionflow.workflows.lane.LaneActivities;
import dev.questionflow.workflows.lane.LaneEntry;
import dev.questionflow.workflows.lane.LanePlace;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.lane.Priorities;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The question workflow's view of a lane's queue: position from the ledger, ETA from the lane's
 * current rate and the mean duration of its recent calls: {@code eta = (position + 1) / service
 * rate + mean processing time}, where the service rate is the lane's rate limit or, when a busy
 * lane serves slower than that, what it served lately.
 */
public class LaneLedgerActivities implements LaneActivities {

  private static final Duration STATS_WINDOW = Duration.ofSeconds(60);
  static final long SERVICE_SECONDS = 10;
  static final long MIN_CALLS_FOR_SERVICE_RATE = 3;

  private final LaneLedger ledger;
  private final Map<String, Double> configuredRates;
  private final Map<String, Integer> caps;
  private final Clock clock;
  private final double frontLineWaitSeconds;

  /**
   * @param configuredRates each lane's configured rate (calls/s) by task queue, until the
   *     controller stores one
   */
  public LaneLedgerActivities(LaneLedger ledger, Map<String, Double> configuredRates, Clock clock) {
    this(ledger, configuredRates, Map.of(), clock);
  }

  /**
   * @param caps each lane's limit of calls in flight by task queue (the provider's concurrency
   *     limit); a lane without one is not limited
   */
  public LaneLedgerActivities(
      LaneLedger ledger,
      Map<String, Double> configuredRates,
      Map<String, Integer> caps,
      Clock clock) {
    this(ledger, configuredRates, caps, DEFAULT_FRONT_LINE_WAIT, clock);
  }

  /** The default longest wait in a front line ({@code cs.flow-control.front-line-wait}). */
  public static final Duration DEFAULT_FRONT_LINE_WAIT = Duration.ofSeconds(1);

  /**
   * @param frontLineWait the longest projected wait with which a standard question joins its front
   *     line (see {@link #place})
   */
  public LaneLedgerActivities(
      LaneLedger ledger,
      Map<String, Double> configuredRates,
      Map<String, Integer> caps,
      Duration frontLineWait,
      Clock clock) {
    this.frontLineWaitSeconds = frontLineWait.toMillis() / 1000.0;
    this.ledger = ledger;
    this.configuredRates = configuredRates;
    this.caps = caps;
    this.clock = clock;
  }

  @Override
  public LaneSnapshot enterLane(LaneEntry entry) {
    long position =
        ledger.enter(
            entry.lane(), entry.workflowId(), entry.priorityKey(), entry.deadlineEpochMillis());
    return snapshot(entry.lane(), position);
  }

  /**
   * Where the question would stand: those of equal or higher priority ahead, at the rate the lane
   * serves a backlog, or slower while its calls in flight are at their cap and each takes the mean
   * latency (cap / latency calls per second).
   */
  @Override
  public LaneSnapshot admission(LaneEntry entry) {
    String lane = entry.lane();
    LaneSnapshot place = snapshot(lane, ledger.waitingAhead(lane, entry.priorityKey()));
    Integer cap = caps.get(lane);
    long mean = place.meanProcessingMillis();
    if (cap == null || mean <= 0 || ledger.callsInFlight(lane) < cap) {
      return place;
    }
    double rate = Math.min(place.ratePerSecond(), cap / (mean / 1000.0));
    long ahead = place.position() + 1; // even the first in line waits for a call to end
    return new LaneSnapshot(
        ahead, rate, mean, (ahead + 1) / rate + mean / 1000.0, place.atEpochMillis());
  }

  /**
   * A question joins only what serves it within {@link #ADMISSION_SHARE} of the patience it has
   * left. A standard question (the front key) joins its front line while that line's wait is at
   * most {@code frontLineWait}: kept that short, a question arriving after a burst is served next,
   * not after the burst's backlog; and only if it was asked at most that long ago, so the burst's
   * own questions that waited to be started do not take the front line from the ones that come
   * after them (newest first, as in adaptive LIFO). The line's length is read before any of the
   * questions admitted at the same moment has entered it, so the front line also takes a ticket
   * ({@link LaneLedger#takeFrontTicket}: as many as it may hold, refilled at the service rate); a
   * fresh question refused a ticket stands only while the standing line is shorter than a front
   * line, since new questions take the whole rate right now. Otherwise it may stand in the standing
   * line behind, which is served with what the front lines leave of the lane's rate (their arrivals
   * of the last {@value #FRONT_ARRIVALS_SECONDS} s against its service rate): under a sustained
   * overload that is nothing, so its customers are answered at once below the model rather than
   * after waiting for a turn that never comes. VIPs, complaints, upgrades and low-priority
   * questions keep their key.
   */
  @Override
  public LanePlace place(LaneEntry entry, long patienceLeftMillis, long waitedMillis) {
    double fits = patienceLeftMillis / 1000.0 * ADMISSION_SHARE;
    LaneSnapshot own = admission(entry);
    // a front line wait of zero turns the front line off: standard questions share one FIFO line
    boolean fresh = frontLineWaitSeconds > 0 && waitedMillis / 1000.0 <= frontLineWaitSeconds;
    if (entry.priorityKey() != Priorities.FRONT_KEY) {
      return own.waitSeconds() <= fits
          ? new LanePlace(entry.priorityKey(), own.waitSeconds())
          : LanePlace.none(own.waitSeconds());
    }
    double frontLine = Math.max(1, own.ratePerSecond() * frontLineWaitSeconds);
    boolean refused = false;
    if (fresh && own.waitSeconds() <= frontLineWaitSeconds) {
      if (ledger.takeFrontTicket(entry.lane(), own.ratePerSecond(), frontLine)) {
        return own.waitSeconds() <= fits
            ? new LanePlace(entry.priorityKey(), own.waitSeconds())
            : LanePlace.none(own.waitSeconds());
      }
      // no ticket: new questions take the lane's whole rate this very second (the start of a
      // burst, before the arrivals of the last seconds show it)
      refused = true;
    }
    LaneSnapshot standing =
        admission(
            new LaneEntry(
                entry.lane(),
                entry.workflowId(),
                Priorities.STANDING_KEY,
                entry.deadlineEpochMillis()));
    long[] arrivals = ledger.frontArrivalsPerSecond(entry.lane(), FRONT_ARRIVALS_SECONDS);
    double frontRate = java.util.Arrays.stream(arrivals).sum() / (double) FRONT_ARRIVALS_SECONDS;
    double left = standing.ratePerSecond() - frontRate;
    if (!(left > 0) || left < MIN_LEFT_SHARE * standing.ratePerSecond()) {
      return LanePlace.none(-1);
    }
    if (refused && standing.position() >= frontLine) {
      // the standing line then keeps no more than a front line's worth, to fill the gaps the
      // front leaves; more would only wait for their deadlines
      return LanePlace.none(-1);
    }
    double wait = standing.position() / left;
    return wait <= fits ? new LanePlace(Priorities.STANDING_KEY, wait) : LanePlace.none(wait);
  }

  /** A question joins a line only if it is projected to start within this share of its patience. */
  static final double ADMISSION_SHARE = 0.8;

  /** The front lines' recent arrival rate is taken over this many complete seconds. */
  static final int FRONT_ARRIVALS_SECONDS = 5;

  /** Less of the lane's rate than this share left by the front lines: no turn for the standing. */
  static final double MIN_LEFT_SHARE = 0.05;

  @Override
  public void leaveLane(LaneEntry entry) {
    ledger.leave(entry.lane(), entry.workflowId());
  }

  /** The question's queue deadline in this lane, or -1 when it has no entry there. */
  public long deadlineIn(String lane, String workflowId) {
    return ledger.deadline(lane, workflowId);
  }

  /** {@link #deadlineIn} of each question, in one ledger call. */
  public long[] deadlinesIn(String lane, List<String> workflowIds) {
    return ledger.deadlines(lane, workflowIds);
  }

  /** The ledger's current life ({@link LaneLedger#epoch}), asked at most once a second. */
  public String ledgerEpoch() {
    long now = clock.millis();
    KnownEpoch known = epoch;
    if (known != null && now - known.askedAt() < 1000) {
      return known.value();
    }
    String current;
    try {
      current = ledger.epoch();
    } catch (RuntimeException e) {
      current = "unavailable";
    }
    epoch = new KnownEpoch(current, now);
    return current;
  }

  private record KnownEpoch(String value, long askedAt) {}

  /** The last epoch asked and when. */
  private volatile KnownEpoch epoch;

  /** Removes a question's entry, e.g. one whose question closed (the ledger is only a cache). */
  public void forget(String lane, String workflowId) {
    ledger.leave(lane, workflowId);
  }

  @Override
  public LaneSnapshot laneSnapshot(LaneEntry entry) {
    return snapshot(entry.lane(), ledger.position(entry.lane(), entry.workflowId()));
  }

  /**
   * The question's snapshot if it waits for this lane, else null: one ledger lookup for a question
   * that does not wait (the status reads ask each lane).
   */
  public LaneSnapshot snapshotIfWaiting(String lane, String workflowId) {
    long position = ledger.position(lane, workflowId);
    return position < 0 ? null : snapshot(lane, position);
  }

  /**
   * The snapshots of those of {@code workflowIds} that wait for this lane: their positions in one
   * ledger call, the lane's rate and latency once for all of them.
   */
  public java.util.Map<String, LaneSnapshot> snapshotsIfWaiting(
      String lane, List<String> workflowIds) {
    long[] positions = ledger.positions(lane, workflowIds);
    java.util.Map<String, LaneSnapshot> waiting = new java.util.LinkedHashMap<>();
    LaneFigures figures = null;
    for (int i = 0; i < positions.length; i++) {
      if (positions[i] < 0) {
        continue;
      }
      if (figures == null) {
        double limit = Math.max(0.01, ledger.rate(lane, configuredRates.getOrDefault(lane, 1.0)));
        figures =
            new LaneFigures(
                limit,
                serviceRate(lane, limit),
                Math.round(ledger.stats(lane, STATS_WINDOW).meanLatencyMillis()));
      }
      long position = positions[i];
      double rate = position > 0 ? figures.serviceRate() : figures.limit();
      double eta = (position + 1) / rate + figures.meanMillis() / 1000.0;
      waiting.put(
          workflowIds.get(i),
          new LaneSnapshot(position, rate, figures.meanMillis(), eta, clock.millis()));
    }
    return waiting;
  }

  private record LaneFigures(double limit, double serviceRate, long meanMillis) {}

  private LaneSnapshot snapshot(String lane, long position) {
    double limit = Math.max(0.01, ledger.rate(lane, configuredRates.getOrDefault(lane, 1.0)));
    double rate = position > 0 ? serviceRate(lane, limit) : limit;
    long mean = Math.round(ledger.stats(lane, STATS_WINDOW).meanLatencyMillis());
    double eta = position < 0 ? 0 : (position + 1) / rate + mean / 1000.0;
    return new LaneSnapshot(position, rate, mean, eta, clock.millis());
  }

  /**
   * How fast a lane with a backlog actually serves: its rate limit, or less when the model's
   * latency and the workers' concurrency cap hold it back (e.g. 1 call at a time of 2.5 s serves
   * 0.4/s whatever the limit). Taken from the calls finished in the last {@value #SERVICE_SECONDS}
   * complete seconds, over the span from the first to the last second that had any (a lane that
   * started 3 s ago served its calls in 3 s, not in 10), and only for a question with others ahead:
   * a backlog means the lane is busy, so its recent throughput is its capacity, whereas a quiet
   * lane's few calls say nothing about how fast it could go.
   */
  private double serviceRate(String lane, double limit) {
    long[] perSecond = ledger.callsPerSecond(lane, (int) SERVICE_SECONDS);
    int first = -1;
    int last = -1;
    long calls = 0;
    for (int i = 0; i < perSecond.length; i++) {
      if (perSecond[i] > 0) {
        first = first < 0 ? i : first;
        last = i;
        calls += perSecond[i];
      }
    }
    if (calls < MIN_CALLS_FOR_SERVICE_RATE || last == first) {
      return limit;
    }
    // n calls spread from the first busy second to the last: n - 1 intervals (whole seconds only,
    // so no edge second
    // counts as a full second of service)
    return Math.min(limit, (double) (calls - 1) / (last - first));
  }
}
