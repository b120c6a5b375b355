package dev.questionflow.workflows.question;

import dev.questionflow.workflows.SearchAttributes;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * What people see of a running question: its stage (status query, {@code Stage} search attribute)
 * and details.
 */
final class Progress {

  private Stage stage = Stage.RECEIVED;

  Stage stage() {
    return stage;
  }

  /**
   * The stage alone; the caller upserts the search attribute together with others, in one command.
   */
  void set(Stage next) {
    stage = next;
  }

  /** The stage and its search attribute. */
  void moveTo(Stage next) {
    stage = next;
    Workflow.upsertTypedSearchAttributes(SearchAttributes.STAGE.valueSet(next.name()));
  }

  /** Waiting for a model lane: the stage and, for "who has waited longest" searches, since when. */
  void startWaiting() {
    stage = Stage.WAITING_IN_QUEUE;
    Workflow.upsertTypedSearchAttributes(
        SearchAttributes.STAGE.valueSet(stage.name()),
        SearchAttributes.WAITING_SINCE.valueSet(
            OffsetDateTime.ofInstant(
                Instant.ofEpochMilli(Workflow.currentTimeMillis()), ZoneOffset.UTC)));
  }

  /**
   * The workflow's current details (Web UI "Current Details", {@code temporal workflow describe}):
   * kept in the workflow's state and served by a query, so updating it writes no history event.
   */
  static void details(String text) {
    Workflow.setCurrentDetails(text);
  }
}
