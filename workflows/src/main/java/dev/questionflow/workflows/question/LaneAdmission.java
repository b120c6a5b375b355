package dev.questionflow.workflows.question;

import dev.questionflow.workflows.lane.LaneActivities;
import dev.questionflow.workflows.lane.LaneEntry;
import dev.questionflow.workflows.lane.LanePlace;
import dev.questionflow.workflows.lane.LaneSnapshot;
import io.temporal.workflow.Workflow;

/**
 * Whether a question that has an answer below the model joins a model's line, and at which priority
 * key. A question whose ledger cannot answer joins at its own key (a ledger failure only costs the
 * queue position, never the answer).
 */
final class LaneAdmission {

  /**
   * Version 1: the lane places the question ({@link LaneActivities#place}): a short front line at
   * its priority, else the standing line behind it if the rate the front lines leave serves it in
   * time, else not at all. Before it, the projected wait at its own key against {@link
   * #ADMISSION_SHARE} of its patience.
   */
  static final String FRONT_LINE = "front-line";

  /**
   * Before {@link #FRONT_LINE}: a question joined the line only if its projected wait fit this
   * share of its patience.
   */
  static final double ADMISSION_SHARE = 0.8;

  /**
   * Where to join: the entry to join with, or null; the projected wait (negative: the lane's whole
   * rate goes to questions ahead, no turn in sight).
   */
  record Decision(LaneEntry entry, double waitSeconds) {
    boolean joins() {
      return entry != null;
    }

    /** Why a question does not join, for its answer's notice and the log. */
    String why(long leftMillis) {
      long patience = Math.max(1, leftMillis / 1000);
      return waitSeconds < 0
          ? String.format("busy, no turn in line within %d s of patience", patience)
          : String.format(
              "busy, about %d s in line against %d s of patience",
              (long) Math.ceil(waitSeconds), patience);
    }
  }

  private LaneAdmission() {}

  static Decision decide(LaneActivities ledger, LaneEntry entry, long leftMillis) {
    if (Workflow.getVersion(FRONT_LINE, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION) {
      LaneSnapshot place = ModelLane.snapshotOrNone(() -> ledger.admission(entry));
      return place != null && place.waitSeconds() * 1000 > leftMillis * ADMISSION_SHARE
          ? new Decision(null, place.waitSeconds())
          : new Decision(entry, place == null ? 0 : place.waitSeconds());
    }
    long waited = Workflow.currentTimeMillis() - Workflow.getInfo().getRunStartedTimestampMillis();
    LanePlace place = ModelLane.outcomeOrNone(() -> ledger.place(entry, leftMillis, waited));
    if (place == null) {
      return new Decision(entry, 0);
    }
    if (!place.joins()) {
      return new Decision(null, place.waitSeconds());
    }
    return new Decision(
        new LaneEntry(
            entry.lane(), entry.workflowId(), place.priorityKey(), entry.deadlineEpochMillis()),
        place.waitSeconds());
  }
}
