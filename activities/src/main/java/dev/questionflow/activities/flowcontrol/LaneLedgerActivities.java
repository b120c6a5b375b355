package dev.questionflow.activities.flowcontrol;

import dev.questionflow.workflows.lane.LaneActivities;
import dev.questionflow.workflows.lane.LaneEntry;
import dev.questionflow.workflows.lane.LaneSnapshot;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * The question workflow's view of a lane's queue: position from the ledger, ETA from the lane's current rate and
 * the mean duration of its recent calls: {@code eta = (position + 1) / rate + mean processing time}.
 */
public class LaneLedgerActivities implements LaneActivities {

  private static final Duration STATS_WINDOW = Duration.ofSeconds(60);

  private final LaneLedger ledger;
  private final Map<String, Double> configuredRates;
  private final Clock clock;

  /** @param configuredRates each lane's configured rate (calls/s) by task queue, until the controller stores one */
  public LaneLedgerActivities(LaneLedger ledger, Map<String, Double> configuredRates, Clock clock) {
    this.ledger = ledger;
    this.configuredRates = configuredRates;
    this.clock = clock;
  }

  @Override
  public LaneSnapshot enterLane(LaneEntry entry) {
    long position = ledger.enter(entry.lane(), entry.workflowId(), entry.priorityKey());
    return snapshot(entry.lane(), position);
  }

  @Override
  public LaneSnapshot laneSnapshot(LaneEntry entry) {
    return snapshot(entry.lane(), ledger.position(entry.lane(), entry.workflowId()));
  }

  private LaneSnapshot snapshot(String lane, long position) {
    double rate = Math.max(0.01, ledger.rate(lane, configuredRates.getOrDefault(lane, 1.0)));
    long mean = Math.round(ledger.stats(lane, STATS_WINDOW).meanLatencyMillis());
    double eta = position < 0 ? 0 : (position + 1) / rate + mean / 1000.0;
    return new LaneSnapshot(position, rate, mean, eta, clock.millis());
  }
}
