package dev.questionflow.activities.lane;

import dev.questionflow.workflows.lane.Priorities;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One instance's lanes, in process memory: the zero-install default (not shared; see {@link
 * RedisLaneLedger}).
 */
public final class InMemoryLaneLedger implements LaneLedger {

  private record Call(long at, boolean ok, long latency) {}

  private final Clock clock;
  private final Map<String, Lease> leases = new HashMap<>();
  private final Map<String, TreeMap<Double, String>> waiting = new HashMap<>();
  private final Map<String, Map<String, Double>> scores = new HashMap<>();
  private final Map<String, Deque<Call>> calls = new HashMap<>();
  private final Map<String, Double> rates = new HashMap<>();

  /**
   * Questions whose call started (lane -> workflow ID -> when), so a late entry is not counted as
   * waiting.
   */
  private final Map<String, Map<String, Long>> startedAt = new HashMap<>();

  /** Each waiting question's deadline (entry time plus {@link #NO_DEADLINE_STALE} without one). */
  private final Map<String, Map<String, Long>> deadlines = new HashMap<>();

  /** Calls in flight: lane -> call -> start time. */
  private final Map<String, Map<String, Long>> inFlight = new HashMap<>();

  private long seq;
  private final Map<String, Deque<Long>> frontArrivals = new HashMap<>();

  /** Each lane's front-line tickets: {tokens, when last refilled (ms)}. */
  private final Map<String, double[]> frontTickets = new HashMap<>();

  private static final java.time.Duration STARTED_KEPT = java.time.Duration.ofSeconds(50);
  private static final java.time.Duration NO_DEADLINE_STALE = java.time.Duration.ofMinutes(10);

  public InMemoryLaneLedger(Clock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized long enter(
      String lane, String workflowId, int priorityKey, long deadlineEpochMillis) {
    long now = clock.millis();
    if (priorityKey < Priorities.STANDING_KEY
        && !scores.getOrDefault(lane, Map.of()).containsKey(workflowId)) {
      Deque<Long> arrived = frontArrivals.computeIfAbsent(lane, l -> new ArrayDeque<>());
      arrived.addLast(now);
      while (arrived.size() > 10_000 || arrived.peekFirst() < now - 600_000) {
        arrived.removeFirst();
      }
    }
    Map<String, Long> started = startedAt.computeIfAbsent(lane, l -> new HashMap<>());
    long cutoff = now - STARTED_KEPT.toMillis();
    started.values().removeIf(at -> at < cutoff);
    if (started.containsKey(workflowId)) {
      return -1;
    }
    for (String stale : overdue(lane, now - RedisLaneLedger.DEADLINE_GRACE_MILLIS)) {
      leave(lane, stale);
    }
    Map<String, Double> byId = scores.computeIfAbsent(lane, l -> new HashMap<>());
    if (!byId.containsKey(workflowId)) {
      double score = RedisLaneLedger.score(priorityKey, ++seq);
      byId.put(workflowId, score);
      waiting.computeIfAbsent(lane, l -> new TreeMap<>()).put(score, workflowId);
      deadlines
          .computeIfAbsent(lane, l -> new HashMap<>())
          .put(
              workflowId,
              deadlineEpochMillis > 0 ? deadlineEpochMillis : now + NO_DEADLINE_STALE.toMillis());
    }
    return position(lane, workflowId);
  }

  @Override
  public synchronized boolean takeFrontTicket(String lane, double perSecond, double capacity) {
    long now = clock.millis();
    double[] bucket = frontTickets.computeIfAbsent(lane, l -> new double[] {capacity, now});
    bucket[0] = Math.min(capacity, bucket[0] + Math.max(0, now - bucket[1]) / 1000.0 * perSecond);
    bucket[1] = now;
    if (bucket[0] >= 1) {
      bucket[0] -= 1;
      return true;
    }
    return false;
  }

  @Override
  public synchronized long waitingAhead(String lane, int priorityKey) {
    TreeMap<Double, String> line = waiting.get(lane);
    return line == null ? 0 : line.headMap(RedisLaneLedger.score(priorityKey + 1, 0), false).size();
  }

  @Override
  public synchronized void leave(String lane, String workflowId) {
    Double score = scores.getOrDefault(lane, new HashMap<>()).remove(workflowId);
    if (score != null) {
      waiting.get(lane).remove(score);
    }
    deadlines.getOrDefault(lane, new HashMap<>()).remove(workflowId);
  }

  @Override
  public synchronized long sweep(String lane) {
    long now = clock.millis();
    List<String> stale = overdue(lane, now - RedisLaneLedger.DEADLINE_GRACE_MILLIS);
    stale.forEach(id -> leave(lane, id));
    Map<String, Long> started = startedAt.getOrDefault(lane, new HashMap<>());
    int before = started.size();
    started.values().removeIf(at -> at < now - STARTED_KEPT.toMillis());
    return stale.size() + (before - started.size());
  }

  @Override
  public synchronized long deadline(String lane, String workflowId) {
    return deadlines.getOrDefault(lane, Map.of()).getOrDefault(workflowId, -1L);
  }

  @Override
  public synchronized List<String> overdue(String lane, long epochMillis) {
    return deadlines.getOrDefault(lane, Map.of()).entrySet().stream()
        .filter(e -> e.getValue() < epochMillis)
        .map(Map.Entry::getKey)
        .toList();
  }

  @Override
  public synchronized boolean tryStartCall(
      String lane, String callId, int cap, double rate, long meanLatencyMillis, long leaseMillis) {
    long now = clock.millis();
    Map<String, Long> calls = inFlight.computeIfAbsent(lane, l -> new HashMap<>());
    calls.values().removeIf(at -> at < now - leaseMillis);
    if (calls.containsKey(callId)) {
      return true;
    }
    long oldest = calls.values().stream().mapToLong(Long::longValue).min().orElse(now);
    long latency = Math.max(meanLatencyMillis, now - oldest);
    if (calls.size() < LaneLedger.inFlightLimit(cap, rate, latency)) {
      calls.put(callId, now);
      return true;
    }
    return false;
  }

  @Override
  public synchronized void endCall(String lane, String callId) {
    inFlight.getOrDefault(lane, new HashMap<>()).remove(callId);
  }

  @Override
  public synchronized long callsInFlight(String lane) {
    return inFlight.getOrDefault(lane, Map.of()).size();
  }

  @Override
  public synchronized long position(String lane, String workflowId) {
    Double score = scores.getOrDefault(lane, Map.of()).get(workflowId);
    if (score == null) {
      return -1;
    }
    return waiting.get(lane).headMap(score, false).size();
  }

  @Override
  public synchronized void started(String lane, String workflowId) {
    startedAt.computeIfAbsent(lane, l -> new HashMap<>()).put(workflowId, clock.millis());
    leave(lane, workflowId);
  }

  @Override
  public synchronized void finished(String lane, boolean success, long latencyMillis) {
    Deque<Call> deque = calls.computeIfAbsent(lane, l -> new ArrayDeque<>());
    deque.addLast(new Call(clock.millis(), success, latencyMillis));
    while (deque.size() > 100_000) {
      deque.removeFirst();
    }
  }

  @Override
  public synchronized long[] callsPerSecond(String lane, int seconds) {
    return perSecond(calls.getOrDefault(lane, new ArrayDeque<>()).stream().map(Call::at), seconds);
  }

  @Override
  public synchronized long[] frontArrivalsPerSecond(String lane, int seconds) {
    return perSecond(frontArrivals.getOrDefault(lane, new ArrayDeque<>()).stream(), seconds);
  }

  /** How many of {@code times} (epoch ms) fell in each of the last complete seconds. */
  private long[] perSecond(java.util.stream.Stream<Long> times, int seconds) {
    long now = clock.millis() / 1000;
    long[] counts = new long[seconds];
    times.forEach(
        at -> {
          int i = (int) (at / 1000 - (now - seconds));
          if (i >= 0 && i < seconds) {
            counts[i]++;
          }
        });
    return counts;
  }

  @Override
  public synchronized LaneStats stats(String lane, Duration window) {
    long since = clock.millis() - window.toMillis();
    long n = 0;
    long ok = 0;
    long latency = 0;
    Iterator<Call> it = calls.getOrDefault(lane, new ArrayDeque<>()).descendingIterator();
    while (it.hasNext()) {
      Call c = it.next();
      if (c.at() < since) {
        break;
      }
      n++;
      ok += c.ok() ? 1 : 0;
      latency += c.latency();
    }
    return new LaneStats(n, ok, n == 0 ? 0 : (double) latency / n);
  }

  @Override
  public synchronized double rate(String lane, double fallback) {
    return rates.getOrDefault(lane, fallback);
  }

  @Override
  public synchronized void setRate(String lane, double callsPerSecond) {
    rates.put(lane, callsPerSecond);
  }

  @Override
  public synchronized boolean lead(String lane, String owner, Duration ttl) {
    Lease lease = leases.get(lane);
    long now = clock.millis();
    if (lease == null || lease.owner().equals(owner) || lease.expiresAt() <= now) {
      leases.put(lane, new Lease(owner, now + ttl.toMillis()));
      return true;
    }
    return false;
  }

  private record Lease(String owner, long expiresAt) {}

  @Override
  public String epoch() {
    return "memory";
  }

  @Override
  public String kind() {
    return "in-memory";
  }
}
