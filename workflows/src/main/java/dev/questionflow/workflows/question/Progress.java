package dev.questionflow.workflows.question;

import dev.questionflow.workflows.SearchAttributes;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What people see of a running question: its stage (status query, {@code Stage} search attribute)
 * and details.
 */
final class Progress {

  private Stage stage = Stage.RECEIVED;

  /**
   * Search-attribute changes held for the next upsert (see {@link #holdUpserts}), by attribute
   * name: a later value of the same attribute replaces an earlier one.
   */
  private final Map<String, SearchAttributeUpdate<?>> pending = new LinkedHashMap<>();

  private boolean holding;

  Stage stage() {
    return stage;
  }

  /**
   * From now on, {@link #update} holds its changes until the next change a person can see (the
   * model call goes out, the question waits in a lane, it is answered or handed over), so each of
   * those costs one upsert: every upsert is a history event and a visibility write on the server,
   * and changes made within one workflow task are never seen apart anyway.
   */
  void holdUpserts() {
    holding = true;
  }

  /** Changes search attributes now, or with the next visible change while holding. */
  void update(SearchAttributeUpdate<?>... updates) {
    if (holding) {
      for (SearchAttributeUpdate<?> update : updates) {
        pending.put(update.getKey().getName(), update);
      }
    } else {
      Workflow.upsertTypedSearchAttributes(updates);
    }
  }

  /** Upserts what is held together with {@code updates}, in one command (none if nothing). */
  void upsert(SearchAttributeUpdate<?>... updates) {
    for (SearchAttributeUpdate<?> update : updates) {
      pending.put(update.getKey().getName(), update);
    }
    if (!pending.isEmpty()) {
      Workflow.upsertTypedSearchAttributes(
          pending.values().toArray(new SearchAttributeUpdate<?>[0]));
      pending.clear();
    }
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
    upsert(SearchAttributes.STAGE.valueSet(next.name()));
  }

  /** Waiting for a model lane: the stage and, for "who has waited longest" searches, since when. */
  void startWaiting() {
    stage = Stage.WAITING_IN_QUEUE;
    upsert(
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
