package dev.questionflow.api.question;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.questionflow.activities.status.PublishedStatus;
import dev.questionflow.activities.status.StatusStore;
import dev.questionflow.api.config.CsProperties;
import dev.questionflow.api.config.StatusStreamsProperties;
import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowNotFoundException;
import java.time.Duration;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * The published statuses a status read or an event stream may go by. The store is a cache, the
 * workflow the truth; a published status is not taken when:
 *
 * <ul>
 *   <li>it is the API's RECEIVED from longer ago than a worker takes to publish (a worker that does
 *       not publish, e.g. of an older build during a rollout, leaves only that);
 *   <li>it is not final and was kept from before the store last restarted or failed over ({@link
 *       PublishedStatus#fromEarlierLife}), and the workflow's description disagrees with it: the
 *       store lost a later change (the question finished, but its key still says PROCESSING). Such
 *       a status is checked once per instance; a final one cannot have been followed by a change.
 * </ul>
 */
@Component
class PublishedStatuses {

  private static final Logger log = LoggerFactory.getLogger(PublishedStatuses.class);

  private final StatusStore store;
  private final boolean enabled;
  private final long receivedTrustedMillis;
  private final Function<String, WorkflowExecutionDescription> describe;
  private final Counter contradictions;

  /** Statuses from before the store's life, checked: true agreed with the workflow. */
  private final Cache<String, Boolean> verdicts =
      Caffeine.newBuilder().maximumSize(100_000).expireAfterWrite(Duration.ofHours(1)).build();

  @Autowired
  PublishedStatuses(
      StatusStore store,
      WorkflowClient client,
      CsProperties properties,
      StatusStreamsProperties streams,
      MeterRegistry meters) {
    this(
        store,
        streams.enabled(),
        // a question's first workflow task publishes long before its chain budget ends, however
        // many were asked at once; only a worker that does not publish leaves RECEIVED that long
        properties.ladder().chainBudget(),
        id -> client.newUntypedWorkflowStub(id).describe(),
        meters);
  }

  PublishedStatuses(
      StatusStore store,
      boolean enabled,
      Duration receivedTrusted,
      Function<String, WorkflowExecutionDescription> describe,
      MeterRegistry meters) {
    this.store = store;
    this.enabled = enabled;
    this.receivedTrustedMillis = receivedTrusted.toMillis();
    this.describe = describe;
    this.contradictions =
        Counter.builder("cs_status_published_contradicted_total")
            .description(
                "Published statuses from before a Redis restart that the workflow contradicted")
            .register(meters);
  }

  /** The question's published status to go by, or null: none kept, not taken, store unreachable. */
  PublishedStatus latest(String workflowId) {
    if (!enabled) {
      return null;
    }
    PublishedStatus latest;
    try {
      latest = store.latest(workflowId);
    } catch (RuntimeException e) {
      log.debug("published status of {} unavailable: {}", workflowId, e.toString());
      return null;
    }
    if (latest == null || latest.version() == 0 && !receivedStillDue(latest)) {
      return null;
    }
    if (latest.fromEarlierLife() && !isFinal(latest.status()) && !agreesWithWorkflow(latest)) {
      return null;
    }
    return latest;
  }

  /** Whether the workflow contradicted this status (known from an earlier check; no I/O). */
  boolean contradicted(PublishedStatus status) {
    return Boolean.FALSE.equals(verdicts.getIfPresent(verdictKey(status)));
  }

  /** Whether the API's RECEIVED is still the status (a worker is due to publish). */
  boolean receivedStillDue(PublishedStatus received) {
    return System.currentTimeMillis() - received.publishedAtMillis() <= receivedTrustedMillis;
  }

  private boolean agreesWithWorkflow(PublishedStatus status) {
    String key = verdictKey(status);
    Boolean known = verdicts.getIfPresent(key);
    if (known != null) {
      return known;
    }
    boolean agrees;
    try {
      WorkflowExecutionDescription truth = describe.apply(status.workflowId());
      String stage = truth.getTypedSearchAttributes().get(SearchAttributes.STAGE);
      agrees =
          truth.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
              && (stage == null ? Stage.RECEIVED : Stage.valueOf(stage)) == status.status().stage();
    } catch (WorkflowNotFoundException e) {
      agrees = false;
    } catch (RuntimeException e) {
      // Temporal unreachable: the status is the best there is, and is checked at the next read
      log.debug("cannot check {} against its workflow: {}", status.workflowId(), e.toString());
      return true;
    }
    verdicts.put(key, agrees);
    if (!agrees) {
      contradictions.increment();
      log.info(
          "status of {} published before the store restarted is out of date: read from Temporal",
          status.workflowId());
    }
    return agrees;
  }

  private static String verdictKey(PublishedStatus status) {
    return status.workflowId() + "@" + status.version();
  }

  /** No change follows: answered for good, or failed. */
  private static boolean isFinal(QuestionStatus status) {
    return status.stage() == Stage.FAILED || StatusEvents.isFinal(status);
  }
}
