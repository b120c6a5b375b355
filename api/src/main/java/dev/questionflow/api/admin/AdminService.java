package dev.questionflow.api.admin;

import dev.questionflow.api.question.NotFoundException;
import dev.questionflow.api.web.ConflictException;
import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.deadletter.DeadLetterStatus;
import dev.questionflow.workflows.deadletter.DeadLetterTicketWorkflow;
import dev.questionflow.workflows.question.Stage;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.ResetWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.common.WorkflowExecutionHistory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * What support engineers do by hand in the Web UI or the CLI, as API calls: find, redrive, re-run,
 * export.
 */
@Service
class AdminService {

  private static final Logger log = LoggerFactory.getLogger(AdminService.class);

  /**
   * Events after which the run did something wrong: a reset to "last good" goes to the task before
   * the first.
   */
  private static final Set<EventType> FAILURES =
      Set.of(
          EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
          EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
          EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
          EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
          EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
          EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT);

  record WaitingQuestion(
      String workflowId,
      String runId,
      String stage,
      Long priority,
      String customerId,
      String sessionId,
      Instant startTime,
      OffsetDateTime waitingSince,
      long secondsSinceStart) {}

  record DeadLetterView(
      String ticketId, String workflowId, Instant since, DeadLetterStatus status) {}

  record Rerun(
      String workflowId, String previousRunId, String runId, long resetToEventId, String from) {}

  enum RerunFrom {
    /**
     * The last completed workflow task before the run's first failure (or its last one if nothing
     * failed).
     */
    LAST_GOOD,
    /**
     * The first workflow task: the question runs again from the start with the same input and
     * workflow ID.
     */
    START
  }

  private final WorkflowClient client;
  private final Clock clock;

  AdminService(WorkflowClient client) {
    this.client = client;
    this.clock = Clock.systemUTC();
  }

  /**
   * Running questions started at least {@code olderThan} ago, optionally only those in one stage;
   * oldest first.
   */
  List<WaitingQuestion> stuck(Duration olderThan, Stage stage, int limit) {
    Instant before = clock.instant().minus(olderThan);
    String query =
        // a handed-over question waits for its person as a TicketReplyWorkflow (its start: the
        // hand-over)
        "WorkflowType IN ('QuestionWorkflow', 'TicketReplyWorkflow') AND ExecutionStatus ="
            + " 'Running' AND StartTime < '"
            + before
            + "'"
            + (stage == null ? "" : " AND Stage = '" + stage.name() + "'");
    return visibility(query, limit).stream()
        .map(this::waiting)
        .sorted(java.util.Comparator.comparing(WaitingQuestion::startTime))
        .toList();
  }

  List<DeadLetterView> deadLetters(int limit) {
    String query = "WorkflowType = 'DeadLetterTicket' AND ExecutionStatus = 'Running'";
    return visibility(query, limit).stream()
        .map(
            run -> {
              String workflowId = run.getExecution().getWorkflowId();
              DeadLetterStatus status =
                  client.newWorkflowStub(DeadLetterTicketWorkflow.class, workflowId).status();
              return new DeadLetterView(status.ticketId(), workflowId, run.getStartTime(), status);
            })
        .toList();
  }

  /**
   * Signals the dead letter to try the delivery now; the delivery itself stays idempotent per
   * ticket.
   */
  DeadLetterStatus redrive(String ticketId) {
    String workflowId = DeadLetterTicketWorkflow.workflowIdFor(ticketId);
    WorkflowExecutionMetadata run = describe(workflowId, "no dead letter for ticket " + ticketId);
    if (run.getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      throw new ConflictException(
          "the dead letter of ticket "
              + ticketId
              + " is closed ("
              + shortStatus(run.getStatus())
              + ")");
    }
    DeadLetterTicketWorkflow deadLetter =
        client.newWorkflowStub(DeadLetterTicketWorkflow.class, workflowId);
    deadLetter.redrive();
    log.info("dead letter of ticket {} redriven by an admin", ticketId);
    return deadLetter.status();
  }

  /**
   * Re-runs a question by resetting its workflow (the old run stays in the history, terminated if
   * it was running): the same workflow ID, so the caller's status URL keeps working.
   */
  Rerun rerun(String workflowId, RerunFrom from, String reason) {
    WorkflowExecutionMetadata run = describe(workflowId, "no question " + workflowId);
    if (!"QuestionWorkflow".equals(run.getWorkflowType())) {
      throw new ConflictException(
          workflowId + " is a " + run.getWorkflowType() + ", not a question");
    }
    String runId = run.getExecution().getRunId();
    long eventId = resetPoint(client.fetchHistory(workflowId, runId).getEvents(), from);
    var response =
        client
            .getWorkflowServiceStubs()
            .blockingStub()
            .resetWorkflowExecution(
                ResetWorkflowExecutionRequest.newBuilder()
                    .setNamespace(client.getOptions().getNamespace())
                    .setWorkflowExecution(
                        WorkflowExecution.newBuilder().setWorkflowId(workflowId).setRunId(runId))
                    .setWorkflowTaskFinishEventId(eventId)
                    .setReason(reason)
                    .setRequestId(UUID.randomUUID().toString())
                    .build());
    log.info("question {} re-run from {} (event {}): {}", workflowId, from, eventId, reason);
    return new Rerun(workflowId, runId, response.getRunId(), eventId, from.name());
  }

  static long resetPoint(List<HistoryEvent> events, RerunFrom from) {
    long lastCompleted = -1;
    for (HistoryEvent event : events) {
      if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        if (from == RerunFrom.START) {
          return event.getEventId();
        }
        lastCompleted = event.getEventId();
      } else if (FAILURES.contains(event.getEventType()) && lastCompleted > 0) {
        return lastCompleted;
      }
    }
    if (lastCompleted < 0) {
      throw new ConflictException("the run has no completed workflow task to reset to yet");
    }
    return lastCompleted;
  }

  /**
   * The run's history as JSON (the format {@code bin/replay --file} and the Temporal tools read).
   */
  String historyJson(String workflowId, String runId) {
    describe(workflowId, "no workflow " + workflowId);
    WorkflowExecutionHistory history =
        runId == null ? client.fetchHistory(workflowId) : client.fetchHistory(workflowId, runId);
    return history.toJson(true);
  }

  private WorkflowExecutionMetadata describe(String workflowId, String notFound) {
    try {
      return client.newUntypedWorkflowStub(workflowId).describe();
    } catch (WorkflowNotFoundException e) {
      throw new NotFoundException(notFound);
    }
  }

  private List<WorkflowExecutionMetadata> visibility(String query, int limit) {
    try {
      return client.listExecutions(query).limit(limit).toList();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        throw new VisibilityUnavailableException();
      }
      throw e;
    }
  }

  private WaitingQuestion waiting(WorkflowExecutionMetadata run) {
    var attributes = run.getTypedSearchAttributes();
    return new WaitingQuestion(
        run.getExecution().getWorkflowId(),
        run.getExecution().getRunId(),
        attributes.get(SearchAttributes.STAGE),
        attributes.get(SearchAttributes.PRIORITY),
        attributes.get(SearchAttributes.CUSTOMER_ID),
        attributes.get(SearchAttributes.SESSION_ID),
        run.getStartTime(),
        attributes.get(SearchAttributes.WAITING_SINCE),
        Duration.between(run.getStartTime(), clock.instant()).toSeconds());
  }

  private static String shortStatus(WorkflowExecutionStatus status) {
    return status
        .name()
        .replace("WORKFLOW_EXECUTION_STATUS_", "")
        .toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * The embedded in-process server has no visibility store: list queries need a real Temporal
   * server.
   */
  static final class VisibilityUnavailableException extends RuntimeException {
    VisibilityUnavailableException() {
      super(
          "listing workflows needs a Temporal server with visibility (set TEMPORAL_ADDRESS);"
              + " the embedded in-process server has none");
    }
  }
}
