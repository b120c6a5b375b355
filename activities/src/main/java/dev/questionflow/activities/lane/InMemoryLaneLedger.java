package dev.questionflow.activities.lane;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
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

  private long seq;

  private static final java.time.Duration STARTED_KEPT = java.time.Duration.ofMinutes(10);

  public InMemoryLaneLedger(Clock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized long enter(String lane, String workflowId, int priorityKey) {
    Map<String, Long> started = startedAt.computeIfAbsent(lane, l -> new HashMap<>());
    long cutoff = clock.millis() - STARTED_KEPT.toMillis();
    started.values().removeIf(at -> at < cutoff);
    if (started.containsKey(workflowId)) {
      return -1;
    }
    Map<String, Double> byId = scores.computeIfAbsent(lane, l -> new HashMap<>());
    if (!byId.containsKey(workflowId)) {
      double score = RedisLaneLedger.score(priorityKey, ++seq);
      byId.put(workflowId, score);
      waiting.computeIfAbsent(lane, l -> new TreeMap<>()).put(score, workflowId);
    }
    return position(lane, workflowId);
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
    Double score = scores.getOrDefault(lane, new HashMap<>()).remove(workflowId);
    if (score != null) {
      waiting.get(lane).remove(score);
    }
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
    long now = clock.millis() / 1000;
    long[] counts = new long[seconds];
    for (Call c : calls.getOrDefault(lane, new ArrayDeque<>())) {
      int i = (int) (c.at() / 1000 - (now - seconds));
      if (i >= 0 && i < seconds) {
        counts[i]++;
      }
    }
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
  public String kind() {
    return "in-memory";
  }
}
