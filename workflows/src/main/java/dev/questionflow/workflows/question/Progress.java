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
   * Version 1: search attributes the API set at start are not set again, and the stage and intent
   * are held until the next change a person can see ({@link #holdUpserts}): an answer from the FAQ
   * costs one upsert instead of three.
   */
  static final String FEWER_UPSERTS = "fewer-upserts";

  /**
   * Processing begins: the stage, and the search attributes the API set at start when it did not
   * (the CLI or a test may not). Since {@link #FEWER_UPSERTS} they are held for the next visible
   * change; before it they were upserted at once, all four.
   */
  void begin(Question question) {
    set(Stage.PROCESSING);
    boolean fewerUpserts = Workflow.getVersion(FEWER_UPSERTS, Workflow.DEFAULT_VERSION, 1) == 1;
    SearchAttributeUpdate<?>[] start = {
      SearchAttributes.CUSTOMER_ID.valueSet(question.userId()),
      SearchAttributes.SESSION_ID.valueSet(question.sessionId()),
      SearchAttributes.PRIORITY.valueSet((long) question.priority())
    };
    if (!fewerUpserts) {
      update(start[0], start[1], start[2], SearchAttributes.STAGE.valueSet(stage.name()));
      return;
    }
    holdUpserts();
    update(SearchAttributes.STAGE.valueSet(stage.name()));
    var given = Workflow.getTypedSearchAttributes();
    if (!(question.userId().equals(given.get(SearchAttributes.CUSTOMER_ID))
        && question.sessionId().equals(given.get(SearchAttributes.SESSION_ID))
        && Long.valueOf(question.priority()).equals(given.get(SearchAttributes.PRIORITY)))) {
      update(start);
    }
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
