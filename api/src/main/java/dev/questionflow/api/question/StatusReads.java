package dev.questionflow.api.question;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.questionflow.activities.lane.LaneLedgerActivities;
import dev.questionflow.activities.status.PublishedStatus;
import dev.questionflow.api.config.CsProperties;
import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.QuestionWorkflow;
import dev.questionflow.workflows.question.Stage;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.HistoryEventFilterType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowNotFoundException;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * A question's status from where a read is cheap, never from a workflow query: a query is a task
 * for a worker (a full replay when the workflow left the cache), so a chat back end polling every
 * second would cost a workflow task per poll, and hundreds of waiting questions would queue their
 * polls behind the work itself. Instead:
 *
 * <ul>
 *   <li>the workflow's description (history service, no worker): run status, the {@code Stage} and
 *       {@code Intent} search attributes;
 *   <li>waiting for a model: the position in the lane's ledger in Redis (the line the lane serves),
 *       the ETA from the lane's rate, read fresh at every poll and from Redis alone (the intent is
 *       kept from the question's first description);
 *   <li>handed over and waiting for a person, or answered quickly and waiting for an upgrade: the
 *       answer in the workflow's memo;
 *   <li>finished: the workflow's result (its close event).
 * </ul>
 *
 * <p>Only a handed-over question started before the memo existed falls back to the query.
 *
 * <p>All of these only for a question without a published status to go by: a worker publishes each
 * change of a question ({@code StatusInterceptor}), and a read takes it from there (a waiting
 * question's place still from the ledger), so Temporal is read only when there is none ({@link
 * PublishedStatuses}: expired, Redis down, a worker of a build that does not publish, or out of
 * date after a Redis restart).
 *
 * <p>The ledger is a cache: Redis may lose a removal (a restart from its append-only file). So an
 * entry past its question's queue deadline, which cannot be waiting (no call starts after it), is
 * removed and the status read from Temporal; and a question the ledger still shows waiting after
 * the ETA a previous read gave it is checked against its description: if the workflow closed or has
 * an answer, its entry is removed and Temporal's status is the answer.
 */
@Component
class StatusReads {

  private static final Logger log = LoggerFactory.getLogger(StatusReads.class);

  /** Where a status read found its figures ({@code cs_status_reads_total{source}}). */
  enum Source {
    DESCRIPTION,
    LEDGER,
    MEMO,
    RESULT,
    QUERY,
    PUBLISHED
  }

  private final WorkflowClient client;
  private final PublishedStatuses published;
  private final LaneLedgerActivities lanes;
  private final List<String> laneQueues;
  private final Map<Source, Counter> reads = new EnumMap<>(Source.class);
  private final Counter stale;

  /**
   * The intent of recently read questions (it never changes once set), so a waiting question's
   * polls need no description. A small LRU map: the one cache of the app, not worth a library.
   */
  private final Map<String, String> intents =
      Collections.synchronizedMap(
          new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
              return size() > 10_000;
            }
          });

  StatusReads(
      WorkflowClient client,
      LaneLedgerActivities lanes,
      CsProperties properties,
      MeterRegistry meters,
      PublishedStatuses published) {
    this.client = client;
    this.published = published;
    this.lanes = lanes;
    this.laneQueues =
        properties.lanes() == null
            ? List.of()
            : properties.lanes().values().stream().map(CsProperties.Lane::taskQueue).toList();
    this.distrustFor =
        properties.patience().upgrade().plus(properties.flowControl().maxQueueWait()).toMillis();
    // known from the start: a store that restarts before this instance's first waiting read is a
    // restart all the same (a CI run showed five finished questions as waiting without this)
    this.ledgerEpoch = lanes.ledgerEpoch();
    this.stale =
        Counter.builder("cs_lane_ledger_stale_total")
            .description("Lane ledger entries found past their deadline and removed")
            .tag("by", "status-read")
            .register(meters);
    for (Source source : Source.values()) {
      reads.put(
          source,
          Counter.builder("cs_status_reads_total")
              .description("Status reads by where their figures came from (query: a worker task)")
              .tag("source", source.name().toLowerCase())
              .register(meters));
    }
  }

  /** A ledger entry this long past its deadline is checked against Temporal. */
  static final long DEADLINE_GRACE_MILLIS = 2_000;

  /** A question still shown waiting this long after the ETA it was given is checked. */
  static final long ETA_GRACE_MILLIS = 1_000;

  /**
   * Until when (epoch ms) ledger answers are checked against Temporal: for the longest a question
   * can wait in a line after this instance started or the ledger's store restarted (its removals of
   * the last moments may have been lost, and entries of finished questions come back).
   */
  private volatile long distrustUntil;

  private volatile String ledgerEpoch;
  private final long distrustFor;

  /** When each recently read waiting question was due to leave the line (epoch ms). */
  private final Cache<String, Long> dueBy =
      Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(Duration.ofMinutes(10)).build();

  QuestionStatus read(String workflowId) {
    PublishedStatus latest = published.latest(workflowId);
    if (latest != null) {
      return fromPublished(latest);
    }
    // a waiting question is read from Redis alone: the line is there, and the Temporal server is
    // busiest exactly when hundreds wait
    QuestionStatus waiting = waitingInLane(workflowId);
    if (waiting != null) {
      return waiting;
    }
    return fromTemporal(workflowId, describe(workflowId));
  }

  /**
   * A published status as a read shows it: a question waiting for a model with its place and ETA
   * from the lane's ledger (read now, from Redis alone), or PROCESSING once it is in no line (its
   * call started, which the workflow does not publish); anything else as published.
   */
  QuestionStatus fromPublished(PublishedStatus latest) {
    QuestionStatus status = latest.status();
    if (status.stage() != Stage.WAITING_IN_QUEUE) {
      count(Source.PUBLISHED);
      return status;
    }
    String workflowId = latest.workflowId();
    try {
      for (String lane : laneQueues) {
        LaneSnapshot snapshot = lanes.snapshotIfWaiting(lane, workflowId);
        if (snapshot != null) {
          count(Source.LEDGER);
          return QuestionStatus.waiting(
                  workflowId, snapshot.position(), snapshot.etaSeconds(), status.intent())
              .withDeadline(lanes.deadlineIn(lane, workflowId));
        }
      }
      count(Source.PUBLISHED);
      return leftTheLine(status);
    } catch (RuntimeException e) {
      log.debug("lane ledger unavailable, the published status as it is: {}", e.toString());
      count(Source.PUBLISHED);
      return status;
    }
  }

  /** A question published as waiting that is in no line: its call started. */
  static QuestionStatus leftTheLine(QuestionStatus waiting) {
    return new QuestionStatus(
        waiting.workflowId(), Stage.PROCESSING, null, null, waiting.intent(), null);
  }

  /** The lanes a question may wait for (their ledgers' names). */
  List<String> laneQueues() {
    return laneQueues;
  }

  private QuestionStatus fromTemporal(String workflowId, WorkflowExecutionDescription description) {
    var attributes = description.getTypedSearchAttributes();
    String stageName = attributes.get(SearchAttributes.STAGE);
    Stage stage = stageName == null ? Stage.RECEIVED : Stage.valueOf(stageName);
    String intent = attributes.get(SearchAttributes.INTENT);
    switch (description.getStatus()) {
      case WORKFLOW_EXECUTION_STATUS_RUNNING:
        break;
      case WORKFLOW_EXECUTION_STATUS_COMPLETED:
        count(Source.RESULT);
        Answer answer = result(workflowId);
        Stage closed = stage == Stage.TICKETED ? Stage.TICKETED : Stage.ANSWERED;
        return new QuestionStatus(workflowId, closed, null, null, intent, answer);
      default: // failed, terminated, timed out, cancelled
        count(Source.DESCRIPTION);
        return new QuestionStatus(workflowId, Stage.FAILED, null, null, intent, null);
    }
    if (stage == Stage.ANSWERED) { // running: a quick answer, an upgrade is expected
      Answer quick = description.getMemo(QuestionWorkflow.ANSWER_MEMO, Answer.class, Answer.class);
      count(Source.MEMO);
      return new QuestionStatus(workflowId, stage, null, null, intent, quick, null, quick != null);
    }
    if (stage == Stage.TICKETED) {
      Answer handedOver =
          description.getMemo(QuestionWorkflow.ANSWER_MEMO, Answer.class, Answer.class);
      if (handedOver != null) {
        count(Source.MEMO);
        return new QuestionStatus(workflowId, stage, null, null, intent, handedOver);
      }
      count(Source.QUERY); // handed over before the memo (Outcome.TICKET_ANSWER_MEMO)
      return client.newWorkflowStub(QuestionWorkflow.class, workflowId).status(null);
    }
    count(Source.DESCRIPTION);
    // still marked waiting but in no lane's line: its call started
    return new QuestionStatus(
        workflowId,
        stage == Stage.WAITING_IN_QUEUE ? Stage.PROCESSING : stage,
        null,
        null,
        intent,
        null);
  }

  /**
   * Its place in the lane it waits for, or null when it waits in none. The intent comes from the
   * question's last description (one per question while it waits: a waiting question has one).
   */
  private QuestionStatus waitingInLane(String workflowId) {
    try {
      for (String lane : laneQueues) {
        LaneSnapshot snapshot = lanes.snapshotIfWaiting(lane, workflowId);
        if (snapshot == null) {
          continue;
        }
        long deadline = lanes.deadlineIn(lane, workflowId);
        if (deadline >= 0 && deadline + DEADLINE_GRACE_MILLIS < System.currentTimeMillis()) {
          // past its deadline no call starts: the entry outlived its question's wait
          stale.increment();
          lanes.forget(lane, workflowId);
          log.info("lane {}: removed an entry past its deadline from the ledger", lane);
          return null;
        }
        long now = System.currentTimeMillis();
        Long due = dueBy.getIfPresent(workflowId);
        if (!ledgerTrusted(now) || due != null && now > due + ETA_GRACE_MILLIS) {
          WorkflowExecutionDescription truth = describe(workflowId);
          if (!stillInLine(truth)) {
            stale.increment();
            lanes.forget(lane, workflowId);
            dueBy.invalidate(workflowId);
            log.info("lane {}: removed the entry of a question that left the line", lane);
            return fromTemporal(workflowId, truth);
          }
        }
        dueBy.put(workflowId, now + (long) (snapshot.etaSeconds() * 1000));
        count(Source.LEDGER);
        return QuestionStatus.waiting(
                workflowId, snapshot.position(), snapshot.etaSeconds(), intentOf(workflowId))
            .withDeadline(deadline);
      }
      return null;
    } catch (RuntimeException e) {
      log.warn("lane ledger unavailable, reading the status from Temporal: {}", e.toString());
      return null;
    }
  }

  /** Whether ledger answers are taken as they are (see {@link #distrustUntil}). */
  private boolean ledgerTrusted(long now) {
    String epoch = lanes.ledgerEpoch();
    if (!epoch.equals(ledgerEpoch)) {
      log.warn("the lane ledger's store restarted: checking its answers against Temporal");
      distrustUntil = now + distrustFor;
      ledgerEpoch = epoch;
    }
    return now >= distrustUntil;
  }

  /** Whether what the workflow last published agrees with a place in a model's line. */
  private static boolean stillInLine(WorkflowExecutionDescription description) {
    String stage = description.getTypedSearchAttributes().get(SearchAttributes.STAGE);
    return description.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
        && (stage == null
            || Stage.valueOf(stage) == Stage.WAITING_IN_QUEUE
            || Stage.valueOf(stage) == Stage.PROCESSING
            || Stage.valueOf(stage) == Stage.RECEIVED);
  }

  private String intentOf(String workflowId) {
    String intent = intents.get(workflowId);
    if (intent == null) {
      describe(workflowId);
      intent = intents.get(workflowId);
    }
    return intent;
  }

  /**
   * The finished workflow's result, from its close event alone (not {@code WorkflowStub.getResult},
   * a long poll, which under the SDK's time-skipping test server also lets timers of other
   * workflows fire).
   */
  private Answer result(String workflowId) {
    var history =
        client
            .getWorkflowServiceStubs()
            .blockingStub()
            .getWorkflowExecutionHistory(
                GetWorkflowExecutionHistoryRequest.newBuilder()
                    .setNamespace(client.getOptions().getNamespace())
                    .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                    .setHistoryEventFilterType(
                        HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
                    .build())
            .getHistory();
    Payloads result =
        history
            .getEvents(history.getEventsCount() - 1)
            .getWorkflowExecutionCompletedEventAttributes()
            .getResult();
    return client
        .getOptions()
        .getDataConverter()
        .fromPayloads(0, Optional.of(result), Answer.class, Answer.class);
  }

  /** The workflow's description (404 when there is none); its intent, once set, is kept. */
  private WorkflowExecutionDescription describe(String workflowId) {
    WorkflowExecutionDescription description;
    try {
      description = client.newUntypedWorkflowStub(workflowId).describe();
    } catch (WorkflowNotFoundException e) {
      throw new NotFoundException("no question with ID " + workflowId);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        throw new NotFoundException("no question with ID " + workflowId);
      }
      throw e;
    }
    String intent = description.getTypedSearchAttributes().get(SearchAttributes.INTENT);
    if (intent != null) {
      intents.put(workflowId, intent);
    }
    return description;
  }

  private void count(Source source) {
    reads.get(source).increment();
  }
}
