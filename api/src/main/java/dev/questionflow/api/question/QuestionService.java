package dev.questionflow.api.question;

import dev.questionflow.activities.callback.CallerCallbacks;
import dev.questionflow.activities.redis.LazyRedis;
import dev.questionflow.activities.session.SessionActivitiesImpl;
import dev.questionflow.activities.status.PublishedStatus;
import dev.questionflow.activities.status.StatusStore;
import dev.questionflow.api.config.CallbacksProperties;
import dev.questionflow.api.config.CsProperties;
import dev.questionflow.api.config.StatusStreamsProperties;
import dev.questionflow.api.security.Requester;
import dev.questionflow.api.temporal.WorkerVersioning;
import dev.questionflow.api.web.InvalidFieldException;
import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.callback.CallbackTarget;
import dev.questionflow.workflows.lane.Priorities;
import dev.questionflow.workflows.question.Question;
import dev.questionflow.workflows.question.Question.Tier;
import dev.questionflow.workflows.question.QuestionPolicy;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.QuestionWorkflow;
import dev.questionflow.workflows.question.Stage;
import dev.questionflow.workflows.session.SessionKeys;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;

/** Starts question workflows and reads their status through workflow queries. */
@Service
public class QuestionService {

  private static final Logger log = LoggerFactory.getLogger(QuestionService.class);

  /** The recent-submits key of a question's asked-again signal: one a window. */
  private static final String ASKED_AGAIN = "#asked-again";

  /** The MDC key the Temporal SDK uses on worker threads (its internal LoggerTag.WORKFLOW_ID). */
  static final String WORKFLOW_ID_LOG_KEY = "WorkflowId";

  static final int DEFAULT_PRIORITY = 5;
  static final int VIP_PRIORITY = 9;

  private final WorkflowClient client;
  private final Timer acceptTimer;
  private final Timer startTimer;
  private final QuestionPolicy policy;
  private final String taskQueue;
  private final SessionLine sessionLine;
  private final WorkflowIds ids;
  private final LegacyQuestionIds legacyIds;
  private final RecentSubmits recent;
  private final StatusReads statusReads;
  private final boolean eagerStart;
  private final CsProperties.Patience patience;
  private final CallerCallbacks callbacks;
  private final long callbackHoldSeconds;
  private final StatusStore statuses;
  private final boolean publishing;

  public QuestionService(
      WorkflowClient client,
      CsProperties properties,
      MeterRegistry meters,
      SessionActivitiesImpl sessions,
      WorkflowIds ids,
      LegacyQuestionIds legacyIds,
      StatusReads statusReads,
      ObjectProvider<LazyRedis> redis,
      WorkerVersioning versioning,
      CallerCallbacks callbacks,
      CallbacksProperties callbackProperties,
      StatusStore statuses,
      StatusStreamsProperties streams) {
    this.client = client;
    this.callbacks = callbacks;
    this.callbackHoldSeconds = callbackProperties.deadLetterHold().toSeconds();
    this.statuses = statuses;
    this.publishing = streams.enabled();
    this.statusReads = statusReads;
    this.sessionLine = new SessionLine(sessions, client);
    this.ids = ids;
    this.legacyIds = legacyIds;
    LazyRedis shared = redis.getIfAvailable();
    Duration window = properties.api().duplicateWindow();
    this.recent =
        shared != null
            ? RecentSubmits.redis(shared, window)
            : RecentSubmits.inMemory(window, 100_000);
    // the whole accept vs. the Temporal start call inside it: the difference is our own work
    this.acceptTimer =
        Timer.builder("cs_accept_seconds")
            .description("Time to accept a question, Temporal start included")
            .publishPercentiles(0.5, 0.99)
            .register(meters);
    this.startTimer =
        Timer.builder("cs_accept_temporal_start_seconds")
            .description(
                "Time of the Temporal StartWorkflowExecution call while accepting a question")
            .publishPercentiles(0.5, 0.99)
            .register(meters);
    this.taskQueue = properties.taskQueue();
    // an eagerly started question runs its first task on this instance's worker, whatever version
    // the deployment routes new questions to
    this.eagerStart = properties.api().eagerStart() && !versioning.on();
    if (properties.api().eagerStart() && versioning.on()) {
      log.info(
          "eager workflow start is off: questions go to the deployment's current version, not to"
              + " this build ({})",
          versioning.buildId());
    }
    this.patience = properties.patience();
    CsProperties.Ladder ladder = properties.ladder();
    CsProperties.Llm.Backup backup = properties.llm().backup();
    this.policy =
        new QuestionPolicy(
            properties.tickets().humanReplyWindow().toSeconds(),
            properties.tickets().promisedReply(),
            ladder.chainBudget().toSeconds(),
            backup != null && backup.baseUrl() != null && !backup.baseUrl().isBlank(),
            ladder.criticalStages(),
            new QuestionPolicy.DeadLetterPolicy(
                ladder.deadLetterInitialBackoff().toSeconds(),
                ladder.deadLetterMaxBackoff().toSeconds()),
            laneQueues(properties),
            properties.flowControl().maxQueueWait().toSeconds(),
            Math.max(1, properties.flowControl().positionRefresh().toSeconds()));
  }

  private static java.util.Map<String, String> laneQueues(CsProperties properties) {
    java.util.Map<String, String> lanes = new java.util.LinkedHashMap<>();
    if (properties.lanes() != null) {
      properties.lanes().forEach((model, lane) -> lanes.put(model, lane.taskQueue()));
    }
    return lanes;
  }

  /**
   * @param requester who asks (already checked: a caller that may assert the request's tier and
   *     user)
   * @param requestId the caller's X-Request-Id (or a generated one), kept in the workflow input and
   *     the logs
   */
  public Accepted ask(Requester requester, AskRequest request, String requestId) {
    return acceptTimer.record(() -> start(requester, request, requestId));
  }

  private Accepted start(Requester requester, AskRequest request, String requestId) {
    String workflowId =
        ids.forMessage(requester, request.userId(), request.sessionId(), request.clientMsgId());
    // the session's line and history belong to this caller and user only
    String sessionKey = SessionKeys.of(requester.name(), request.userId(), request.sessionId());
    Tier tier = request.tier() == null ? Tier.STANDARD : request.tier();
    int priority = tier == Tier.VIP ? VIP_PRIORITY : DEFAULT_PRIORITY;
    QuestionPolicy questionPolicy = policyFor(request, tier);
    CallbackTarget callback = callbackFor(requester, request);
    // the SDK's own MDC key, so API and worker lines of one question share the field (requestId:
    // RequestIdFilter)
    MDC.put(WORKFLOW_ID_LOG_KEY, workflowId);
    try {
      if (!recent.first(workflowId)) {
        log.info("duplicate submit within the window");
        askedAgain(workflowId);
        return new Accepted(workflowId, "/api/v1/questions/" + workflowId, true);
      }
      String legacy = legacyIds.existing(workflowId);
      if (legacy != null) {
        // asked before owner tags grew to 64 bits: the same question, under its old ID; the window
        // forgets the new ID, which must not be answered as an accepted question
        recent.forget(workflowId);
        log.info("duplicate submit of a question accepted under its old-format ID {}", legacy);
        askedAgain(legacy);
        return new Accepted(legacy, "/api/v1/questions/" + legacy, true);
      }
      Question question =
          new Question(
              request.sessionId(),
              request.userId(),
              request.clientMsgId(),
              request.text(),
              tier,
              request.channel() == null ? "web" : request.channel(),
              requestId,
              priority,
              questionPolicy,
              requester.name(),
              callback);
      QuestionWorkflow workflow =
          client.newWorkflowStub(
              QuestionWorkflow.class,
              WorkflowOptions.newBuilder()
                  .setTaskQueue(taskQueue)
                  .setWorkflowId(workflowId)
                  // the first workflow task (intent, FAQ match: the whole FAQ-level answer) comes
                  // back to this instance's worker with the start call's answer, not through a poll
                  .setDisableEagerExecution(!eagerStart)
                  // a finished question with the same message ID is still the same question
                  .setWorkflowIdReusePolicy(
                      WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
                  // priority from the door: the workflow's tasks and the activities it schedules
                  // inherit it, so a VIP is not queued behind standard questions before its lane
                  .setPriority(Priorities.temporal(priority))
                  // the Web UI's one-line summary: who and how urgent, never the message text
                  .setStaticSummary(
                      "Question of customer "
                          + request.userId()
                          + " in session "
                          + request.sessionId()
                          + " from "
                          + requester.name()
                          + ", "
                          + tier
                          + " via "
                          + question.channel()
                          + ", priority "
                          + priority)
                  .setTypedSearchAttributes(
                      io.temporal.common.SearchAttributes.newBuilder()
                          .set(SearchAttributes.CUSTOMER_ID, request.userId())
                          .set(SearchAttributes.SESSION_ID, request.sessionId())
                          .set(SearchAttributes.STAGE, Stage.RECEIVED.name())
                          .set(SearchAttributes.PRIORITY, (long) priority)
                          .set(SearchAttributes.ID_FORMAT, "2") // see LegacyQuestionIds
                          .build())
                  .build());
      sessionLine.join(sessionKey, workflowId);
      boolean duplicate = false;
      try {
        WorkflowExecution execution =
            startTimer.record(() -> WorkflowClient.start(workflow::answer, question));
        log.info("question accepted, run {}", execution.getRunId());
        received(workflowId);
      } catch (WorkflowExecutionAlreadyStarted e) {
        duplicate = true;
        log.info("duplicate submit of an accepted question");
        sessionLine.leaveIfClosed(sessionKey, workflowId);
        askedAgain(workflowId);
      } catch (RuntimeException e) {
        // not accepted: the caller gets an error and will retry; the line must not wait for a
        // question that never ran
        sessionLine.leave(sessionKey, workflowId);
        recent.forget(workflowId);
        throw e;
      }
      return new Accepted(workflowId, "/api/v1/questions/" + workflowId, duplicate);
    } finally {
      MDC.remove(WORKFLOW_ID_LOG_KEY);
    }
  }

  /**
   * The question's first status, RECEIVED, where its streams and reads look for its changes, so the
   * first read finds one there (version 0: whatever its workers publish replaces it, and a status
   * they published already stays). Best effort: without it the first reads go to Temporal.
   */
  private void received(String workflowId) {
    if (!publishing) {
      return;
    }
    try {
      statuses.offerFirst(
          new PublishedStatus(
              workflowId,
              0,
              System.currentTimeMillis(),
              new QuestionStatus(workflowId, Stage.RECEIVED, null, null, null, null)));
    } catch (RuntimeException e) {
      log.debug("first status not kept: {}", e.toString());
    }
  }

  /**
   * The question's own deadline, in its workflow input (durable): the configured patience of its
   * tier, or less if the caller asks for less; more is a 400 (it would outwait the customer the
   * configuration speaks for).
   */
  private QuestionPolicy policyFor(AskRequest request, Tier tier) {
    long most = patience.queueSecondsFor(tier == Tier.VIP);
    Integer asked = request.patienceSeconds();
    if (asked != null && asked > most) {
      throw new InvalidFieldException(
          "patienceSeconds",
          "must be at most " + most + " (the configured patience of a " + tier + " question)");
    }
    return policy.withPatience(
        asked == null ? most : asked,
        Boolean.TRUE.equals(request.upgrade()) ? patience.upgrade().toSeconds() : 0);
  }

  /**
   * Where the question's answer callbacks go: the request's {@code callbackUrl} if it is on one of
   * the caller's registered origins (anything else is a 400 before anything starts), else the
   * caller's registered URL, else none.
   */
  private CallbackTarget callbackFor(Requester requester, AskRequest request) {
    java.net.URI url;
    try {
      url = callbacks.resolve(requester.name(), request.callbackUrl());
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException("callbackUrl", e.getMessage());
    }
    return url == null ? null : new CallbackTarget(url.toString(), callbackHoldSeconds);
  }

  /**
   * The caller sent a question again that it had sent before: its customer is waiting now, which
   * the workflow is told (QuestionWorkflow#askedAgain), once a window per question so that a
   * client's loop costs one signal. A question already answered has nothing to do with it.
   */
  private void askedAgain(String workflowId) {
    if (!recent.first(workflowId + ASKED_AGAIN)) {
      return;
    }
    try {
      client.newWorkflowStub(QuestionWorkflow.class, workflowId).askedAgain();
    } catch (WorkflowNotFoundException e) {
      // answered and closed: the answer is there to read
    } catch (RuntimeException e) {
      log.warn("could not tell a question it was asked again: {}", e.toString());
    }
  }

  /**
   * The status for its owner, staff or an admin; 404 for everybody else (existence is not
   * disclosed).
   */
  public QuestionStatus status(Requester requester, String workflowId) {
    requireReadable(requester, workflowId);
    return status(workflowId);
  }

  /**
   * @throws NotFoundException unless the requester may read the question (the same 404 as for a
   *     question that does not exist)
   */
  void requireReadable(Requester requester, String workflowId) {
    if (!ids.readableBy(workflowId, requester) || !WorkflowIds.isQuestionId(workflowId)) {
      throw new NotFoundException("no question with ID " + workflowId);
    }
  }

  QuestionStatus status(String workflowId) {
    if (!WorkflowIds.isQuestionId(workflowId)) {
      throw new NotFoundException("no question with ID " + workflowId);
    }
    return statusReads.read(workflowId);
  }

  /** Signals a staff reply to the question's workflow. */
  public void deliverStaffReply(
      String workflowId, dev.questionflow.workflows.question.StaffReply reply) {
    client.newWorkflowStub(QuestionWorkflow.class, workflowId).staffReply(reply);
  }
}
