package dev.questionflow.api.question;

import dev.questionflow.activities.status.PublishedStatus;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One question {@link StatusHub} watches: its streams, the latest status published for it and what
 * they were shown. Apart from the hub so that the hub and {@link LanePlaces} share one entry, and
 * what counts as news to its streams ({@link #show}, {@link #movedEnough}) is decided in one place.
 * Its fields are written on the hub's thread only.
 */
final class WatchedQuestion {

  /** A place is shown again when it moved by at least 1/this of itself. */
  static final int PLACE_STEP_DIVISOR = 10;

  final String workflowId;
  final Set<StatusStreams.Watcher> watchers = ConcurrentHashMap.newKeySet();
  volatile PublishedStatus latest;
  volatile QuestionStatus shown;
  long shownPublishedAt;
  long heardAtMillis = System.currentTimeMillis();

  /** The lane it was last seen waiting for, null: none yet. */
  String lane;

  /** Whether its key was read since it is watched (once for all its streams). */
  boolean read;

  long deadline = -1;

  WatchedQuestion(String workflowId) {
    this.workflowId = workflowId;
  }

  /** Tells the question's streams, when what they would show changed. */
  void show(QuestionStatus status, long publishedAt) {
    if (status.equals(shown) || !movedEnough(shown, status)) {
      return;
    }
    shown = status;
    shownPublishedAt = publishedAt;
    for (StatusStreams.Watcher watcher : watchers) {
      watcher.deliver(status, publishedAt);
    }
  }

  /**
   * Whether a new place in the same line is news: it moved by a tenth of the place last shown (at
   * least one), the accuracy a place promises ({@link LaneSnapshot#NEAR_FRONT}). A line of hundreds
   * moves several places a second, and each step sent to every stream of every waiting question
   * would be most of what an instance sends, for a difference nobody reads; near the front every
   * step is shown.
   */
  static boolean movedEnough(QuestionStatus shown, QuestionStatus next) {
    if (shown == null
        || shown.stage() != Stage.WAITING_IN_QUEUE
        || next.stage() != Stage.WAITING_IN_QUEUE
        || shown.queuePosition() == null
        || next.queuePosition() == null
        || !java.util.Objects.equals(shown.deadline(), next.deadline())) {
      return true;
    }
    int before = shown.queuePosition();
    return Math.abs(next.queuePosition() - before) >= Math.max(1, before / PLACE_STEP_DIVISOR);
  }
}
