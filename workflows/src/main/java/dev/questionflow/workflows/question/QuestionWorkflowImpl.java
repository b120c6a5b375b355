package dev.questionflow.workflows.question;

import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.deadletter.DeadLetter;
import dev.questionflow.workflows.deadletter.DeadLetterTicketWorkflow;
import dev.questionflow.workflows.generation.GenerationActivities;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.generation.ModelFailures;
import dev.questionflow.workflows.intent.IntentActivities;
import dev.questionflow.workflows.intent.IntentResult;
import dev.questionflow.workflows.lane.LaneActivities;
import dev.questionflow.workflows.lane.LaneEntry;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.lane.Priorities;
import dev.questionflow.workflows.retrieval.FaqHit;
import dev.questionflow.workflows.retrieval.RetrievalActivities;
import dev.questionflow.workflows.retrieval.RetrievalRequest;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import dev.questionflow.workflows.session.SessionActivities;
import dev.questionflow.workflows.session.SessionJoin;
import dev.questionflow.workflows.session.SessionKeys;
import dev.questionflow.workflows.session.SessionTurn;
import dev.questionflow.workflows.template.TemplateActivities;
import dev.questionflow.workflows.template.TemplateRequest;
import dev.questionflow.workflows.ticket.TicketActivities;
import dev.questionflow.workflows.ticket.TicketClosing;
import dev.questionflow.workflows.ticket.TicketRef;
import dev.questionflow.workflows.ticket.TicketRequest;
import dev.questionflow.workflows.ticket.TicketUndelivered;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.common.Priority;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Saga;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Walks a question down the ladder: intent, retrieval, generation with the primary and then the backup model (RAG
 * or LLM only) inside the chain budget, the FAQ standard answer (semantic or keyword level), and finally a ticket
 * answered by a person. Activity options come from WorkflowImplementationOptions (declared per stage in
 * application.yml), so none are hard-coded here. A model whose circuit is open fails its activity at once
 * ({@link ModelFailures#CIRCUIT_OPEN}, not retried), so such questions reach the FAQ level without waiting.
 */
public class QuestionWorkflowImpl implements QuestionWorkflow {

  private static final Logger log = Workflow.getLogger(QuestionWorkflowImpl.class);
  private static final int TOP_K = 3;
  static final String NO_KNOWLEDGE_NOTICE =
      "Answered without our knowledge base, which is unavailable right now.";
  static final String STANDARD_REPLY_NOTICE = "Simplified mode: this is our standard answer.";
  static final String COMPLAINT_INTENT = "complaint";
  private static final long SESSION_WAIT_SLACK_SECONDS = 30;
  /**
   * At most this many ahead is reported as 0 ("you are next"): within the accuracy the position promises (max(2,
   * 10 %) of those actually served first), and it lets a customer see 0 before the model call starts even though
   * the last few positions pass within a fraction of a second.
   */
  static final long NEAR_FRONT = 2;
  static final double PROJECTION_FACTOR = 0.9;
  /**
   * Version 1: the question joins the lane's ledger through a regular EnterLane activity scheduled in the same
   * workflow task as its lane call, so both tasks are created together and the ledger's order is the order in which
   * the server queues the calls. Before (default version), a local activity joined the ledger before the call was
   * scheduled; under load the workflow task that scheduled the call could complete seconds later, so the ledger's
   * order and the server's differed by dozens of places.
   */
  static final String LANE_ENTRY_WITH_CALL = "lane-entry-with-call";
  /** At most this long for an EnterLane still running after its call finished (its schedule-to-close is 10 s). */
  private static final Duration LANE_ENTRY_WAIT = Duration.ofSeconds(10);

  private final IntentActivities intents = Workflow.newLocalActivityStub(IntentActivities.class);
  private final RetrievalActivities retrieval = Workflow.newLocalActivityStub(RetrievalActivities.class);
  private final GenerationActivities generation = Workflow.newActivityStub(GenerationActivities.class);
  private final TemplateActivities templates = Workflow.newLocalActivityStub(TemplateActivities.class);
  private final TicketActivities tickets = Workflow.newActivityStub(TicketActivities.class);
  private final LaneActivities laneLedger = Workflow.newLocalActivityStub(LaneActivities.class);
  /** EnterLane as a regular activity, scheduled together with the lane call (see {@link #LANE_ENTRY_WITH_CALL}). */
  private final LaneActivities laneEntries = Workflow.newActivityStub(LaneActivities.class);
  private final SessionActivities sessions = Workflow.newLocalActivityStub(SessionActivities.class);

  private Stage stage = Stage.RECEIVED;
  private String intent;
  private Answer answer;
  private StaffReply staffReply;
  private String ticketId;
  private long processingStartedAt;
  private String sessionId;
  private LaneEntry laneEntry;
  private int priority;
  /** The last queue snapshot while waiting for a model lane (null when not waiting). */
  private LaneSnapshot queued;
  /** The ledger's last answer as it came (queued is the projection shown to callers). */
  private LaneSnapshot lastSnapshot;
  private String questionText;
  private String predecessor;
  /** Questions of the session that signalled they finished (kept as a set: a signal may beat the join's result). */
  private final java.util.Set<String> finishedInSession = new java.util.HashSet<>();
  private boolean turnFinished;

  @Override
  public Answer answer(Question question) {
    QuestionPolicy policy = question.policy() == null ? QuestionPolicy.defaults() : question.policy();
    processingStartedAt = Workflow.currentTimeMillis();
    // the line and the history are per caller, user and session (no new command: old histories replay)
    sessionId = SessionKeys.of(question.caller(), question.userId(), question.sessionId());
    priority = question.priority();
    // also set by the API at start; repeated here so workflows started from elsewhere (CLI, tests) carry them
    stage = Stage.PROCESSING;
    Workflow.upsertTypedSearchAttributes(
        SearchAttributes.CUSTOMER_ID.valueSet(question.userId()),
        SearchAttributes.SESSION_ID.valueSet(question.sessionId()),
        SearchAttributes.PRIORITY.valueSet((long) question.priority()),
        SearchAttributes.STAGE.valueSet(stage.name()));
    List<String> problems = new ArrayList<>();
    questionText = question.text();
    awaitSessionTurn(policy);

    details("classifying the intent and searching the FAQ");

    IntentResult classified = classify(question.text(), problems);
    if (classified == null) {
      if (policy.criticalStages().contains("intent")) {
        return handOver(question, RetrievalResult.none("skipped"), policy, reason(problems));
      }
      classified = new IntentResult(IntentActivities.DEFAULT_INTENT, "default");
    }
    intent = classified.intent();
    if (COMPLAINT_INTENT.equals(intent)) {
      priority = Math.max(priority, Priorities.COMPLAINT); // complaints are served before standard questions
    }
    Workflow.upsertTypedSearchAttributes(
        SearchAttributes.INTENT.valueSet(intent), SearchAttributes.PRIORITY.valueSet((long) priority));

    RetrievalResult found = retrieve(question.text(), problems);
    boolean withoutKnowledge = found == null;
    if (found == null) {
      if (policy.criticalStages().contains("retrieval")) {
        return handOver(question, RetrievalResult.none("failed"), policy, reason(problems));
      }
      found = RetrievalResult.none("failed");
    }

    GenerationResult generated = generate(ModelFailures.PRIMARY, question.text(), found, policy, problems);
    if (generated == null && policy.backupModel() && !overBudget(policy)) {
      generated = generate(ModelFailures.BACKUP, question.text(), found, policy, problems);
    }
    if (generated != null) {
      AnswerLevel level = found.matched() ? AnswerLevel.RAG : AnswerLevel.LLM;
      String faqId = found.matched() ? found.best().faqId() : null;
      String notice = withoutKnowledge ? NO_KNOWLEDGE_NOTICE : null;
      return finish(
          new Answer(generated.text(), level, faqId, null, notice, reason(problems)), Stage.ANSWERED);
    }

    if (found.matched()) {
      return finish(faqAnswer(question, found, reason(problems)), Stage.ANSWERED);
    }
    problems.add("no FAQ match");
    return handOver(question, found, policy, reason(problems));
  }

  /**
   * Questions of one session are answered in order: join the session's line and, if another question is ahead,
   * wait (bounded) for its {@code sessionTurnReady} signal, so this one sees that one's answer in its context.
   */
  private void awaitSessionTurn(QuestionPolicy policy) {
    String workflowId = Workflow.getInfo().getWorkflowId();
    try {
      predecessor = sessions.joinSession(new SessionJoin(sessionId, workflowId));
    } catch (ActivityFailure e) {
      log.warn("session line unavailable, answering without waiting for earlier questions: {}", failureType(e));
      return;
    }
    if (predecessor == null || predecessor.equals(workflowId)) {
      return;
    }
    Duration bound =
        Duration.ofSeconds(policy.chainBudgetSeconds() + policy.maxQueueWaitSeconds() + SESSION_WAIT_SLACK_SECONDS);
    String ahead = predecessor;
    details("waiting for the earlier question " + ahead + " of this session (at most " + bound.getSeconds() + " s)");
    if (!Workflow.await(bound, () -> finishedInSession.contains(ahead))) {
      log.warn("question {} of the session did not finish within {}; going ahead", predecessor, bound);
    }
  }

  private void finishSessionTurn(Answer result) {
    if (turnFinished) {
      return;
    }
    turnFinished = true;
    String text = result.level() == AnswerLevel.TICKET ? null : result.text();
    try {
      sessions.finishSessionTurn(
          new SessionTurn(
              sessionId, Workflow.getInfo().getWorkflowId(), questionText, text, result.level().name()));
    } catch (ActivityFailure e) {
      log.warn("could not record the session turn: {}", failureType(e));
    }
  }

  private IntentResult classify(String text, List<String> problems) {
    try {
      return intents.classifyIntent(text);
    } catch (ActivityFailure e) {
      problems.add("intent: " + failureType(e));
      log.warn("intent stage failed: {}", failureType(e));
      return null;
    }
  }

  private RetrievalResult retrieve(String text, List<String> problems) {
    try {
      return retrieval.retrieveFaq(new RetrievalRequest(text, TOP_K));
    } catch (ActivityFailure e) {
      problems.add("retrieval: " + failureType(e));
      log.warn("retrieval stage failed: {}", failureType(e));
      return null;
    }
  }

  /**
   * One model's answer, raced against what is left of the chain budget (a durable timer, so the budget holds across
   * worker restarts). Returns null when the model failed, is not configured, or the budget ran out; the problem is
   * added to {@code problems}.
   */
  private GenerationResult generate(
      String model, String text, RetrievalResult found, QuestionPolicy policy, List<String> problems) {
    Duration left = budgetLeft(policy);
    if (left.isZero() || left.isNegative()) {
      problems.add(model + " model: skipped, chain budget used up");
      return null;
    }
    List<FaqHit> knowledge = found.matched() ? List.of(found.best()) : List.of();
    GenerationRequest request = new GenerationRequest(text, knowledge, model, sessionId);
    String laneQueue = policy.lanes().get(model);
    // the ledger is keyed by the lane's task queue: deployments sharing a Redis keep separate lines
    LaneEntry entry =
        laneQueue == null
            ? null
            : new LaneEntry(laneQueue, Workflow.getInfo().getWorkflowId(), Priorities.toTemporalKey(priority));
    boolean entering =
        entry != null && Workflow.getVersion(LANE_ENTRY_WITH_CALL, Workflow.DEFAULT_VERSION, 1) == 1;
    GenerationActivities laneStub =
        entry == null
            ? generation
            : Workflow.newActivityStub(
                GenerationActivities.class,
                ActivityOptions.newBuilder()
                    .setTaskQueue(laneQueue)
                    .setPriority(Priority.newBuilder().setPriorityKey(entry.priorityKey()).build())
                    .setSummary(model + " model on lane " + laneQueue + ", priority " + priority)
                    .build());
    if (entry != null && !entering) {
      enterQueue(entry);
      left = left.plus(queueAllowance(policy));
    }
    Duration raceFor = left;
    if (queued == null) {
      details("asking the " + model + " model" + (laneQueue == null ? "" : " (lane " + laneQueue + ")"));
    }
    List<Promise<?>> racing = new ArrayList<>(2);
    CancellationScope scope =
        Workflow.newCancellationScope(
            () -> {
              racing.add(Async.function(laneStub::generateAnswer, request));
              racing.add(
                  entering
                      ? Async.function(laneEntries::enterLane, entry)
                      : Workflow.newTimer(raceFor));
            });
    scope.run();
    @SuppressWarnings("unchecked")
    Promise<GenerationResult> call = (Promise<GenerationResult>) racing.get(0);
    Promise<?> timer = racing.get(1);
    CancellationScope timerScope = null;
    Promise<?> entered = entering ? racing.get(1) : null;
    if (entering) {
      // the snapshot comes back within milliseconds; a call that finishes first had a free lane
      Workflow.await(raceFor, () -> entered.isCompleted() || call.isCompleted());
      @SuppressWarnings("unchecked")
      Promise<LaneSnapshot> snapshot = (Promise<LaneSnapshot>) entered;
      queueEntered(snapshot, entry);
      Duration timerFor = budgetLeft(policy).plus(queueAllowance(policy));
      List<Promise<?>> timers = new ArrayList<>(1);
      timerScope = Workflow.newCancellationScope(() -> timers.add(Workflow.newTimer(timerFor)));
      timerScope.run();
      timer = timers.get(0);
    }
    awaitLane(call, timer, policy);
    if (entered != null) {
      // a free lane's call can finish before its EnterLane: let that finish rather than cancel it, or its
      // completion would land while this workflow completes and cost a workflow task retry (UnhandledCommand)
      Workflow.await(LANE_ENTRY_WAIT, entered::isCompleted);
    }
    scope.cancel(); // stops the loser: the timer, or the abandoned model call
    if (timerScope != null) {
      timerScope.cancel();
    }
    if (!call.isCompleted()) {
      problems.add(model + " model: over the " + policy.chainBudgetSeconds() + " s chain budget");
      Workflow.getMetricsScope().tagged(Map.of("model", model)).counter("cs_budget_exceeded_total").inc(1);
      log.warn("{} model did not answer within the chain budget; answering from lower levels", model);
      return null;
    }
    try {
      GenerationResult result = call.get();
      if (!result.answered()) {
        problems.add(model + " model: not configured");
        return null;
      }
      return result;
    } catch (ActivityFailure e) {
      problems.add(model + " model: " + failureType(e));
      log.warn("{} model failed: {}", model, failureType(e));
      return null;
    }
  }

  /** Joins the lane's ledger; a ledger failure only costs the queue position, never the answer. */
  private void enterQueue(LaneEntry entry) {
    LaneSnapshot snapshot = null;
    try {
      snapshot = laneLedger.enterLane(entry);
    } catch (ActivityFailure e) {
      log.warn("lane ledger unavailable, no queue position: {}", failureType(e));
    }
    joined(snapshot, entry);
  }

  /** The result of the EnterLane activity scheduled with the call (not completed: the call finished first). */
  private void queueEntered(Promise<LaneSnapshot> entered, LaneEntry entry) {
    LaneSnapshot snapshot = null;
    if (entered.isCompleted()) {
      try {
        snapshot = entered.get();
      } catch (ActivityFailure e) {
        log.warn("lane ledger unavailable, no queue position: {}", failureType(e));
      }
    }
    joined(snapshot, entry);
  }

  private void joined(LaneSnapshot snapshot, LaneEntry entry) {
    queued = snapshot != null && snapshot.waiting() ? conservative(snapshot, snapshot.ratePerSecond()) : null;
    lastSnapshot = snapshot;
    laneEntry = entry;
    if (queued != null) {
      describeWait();
      stage = Stage.WAITING_IN_QUEUE;
      Workflow.upsertTypedSearchAttributes(
          SearchAttributes.STAGE.valueSet(stage.name()),
          SearchAttributes.WAITING_SINCE.valueSet(
              OffsetDateTime.ofInstant(Instant.ofEpochMilli(Workflow.currentTimeMillis()), ZoneOffset.UTC)));
    }
  }

  /**
   * Waiting behind others for the lane does not count against the chain budget: allow twice the expected wait, at
   * most the SPEC's 60 s (also enforced by the lane activity's schedule-to-start timeout).
   */
  private Duration queueAllowance(QuestionPolicy policy) {
    if (queued == null || queued.position() <= 0) {
      return Duration.ZERO;
    }
    return Duration.ofSeconds(Math.min(policy.maxQueueWaitSeconds(), (long) Math.ceil(2 * queued.etaSeconds())));
  }

  /**
   * Waits for the model call (or the budget timer). While the question is queued it refreshes its position every
   * {@code laneRefreshSeconds} with one local activity: O(1) history events per interval, never a per-second loop.
   */
  private void awaitLane(Promise<?> call, Promise<?> timer, QuestionPolicy policy) {
    Duration refresh = Duration.ofSeconds(policy.laneRefreshSeconds());
    while (!call.isCompleted() && !timer.isCompleted()) {
      if (queued == null) {
        Workflow.await(() -> call.isCompleted() || timer.isCompleted());
        break;
      }
      // near the front, one earlier refresh (when about NEAR_FRONT are left) keeps the last positions exact
      Duration wait = refresh;
      double toFront = (queued.position() - NEAR_FRONT) / Math.max(0.01, queued.ratePerSecond());
      if (toFront > 1 && toFront < refresh.getSeconds()) {
        wait = Duration.ofMillis((long) (toFront * 1000));
      }
      boolean done = Workflow.await(wait, () -> call.isCompleted() || timer.isCompleted());
      if (done) {
        break;
      }
      try {
        LaneSnapshot fresh = laneLedger.laneSnapshot(laneEntry);
        if (!fresh.waiting()) {
          leaveQueue();
        } else {
          queued = nextProjection(fresh);
          describeWait();
        }
      } catch (ActivityFailure e) {
        log.warn("lane ledger unavailable, keeping the last queue position: {}", failureType(e));
      }
    }
    leaveQueue();
  }

  /**
   * The projection after a refresh: projected at the rate this question actually moved since the last snapshot
   * (bounded by the lane's rate limit), so the position between refreshes tracks the real service rate; and never
   * above the position projected so far (a VIP arriving may overtake, but the customer's number only goes down).
   */
  private LaneSnapshot nextProjection(LaneSnapshot fresh) {
    double rate = fresh.ratePerSecond();
    double seconds = (fresh.atEpochMillis() - lastSnapshot.atEpochMillis()) / 1000.0;
    if (seconds > 0) {
      double moved = (lastSnapshot.position() - fresh.position()) / seconds;
      rate = Math.min(fresh.ratePerSecond(), Math.max(0.1 * fresh.ratePerSecond(), moved));
    }
    lastSnapshot = fresh;
    long position = Math.min(fresh.position(), queued.positionAt(fresh.atEpochMillis()));
    double eta = (position + 1) / rate + fresh.meanProcessingMillis() / 1000.0;
    return conservative(
        new LaneSnapshot(position, rate, fresh.meanProcessingMillis(), eta, fresh.atEpochMillis()), rate);
  }

  /**
   * Projects a little slower than the lane serves ({@value #PROJECTION_FACTOR} of the rate): the next snapshot then
   * usually finds the question further ahead than projected and is taken as it is, instead of being clamped to a
   * projection that ran ahead of reality (which would carry the error into every later position).
   */
  private static LaneSnapshot conservative(LaneSnapshot s, double rate) {
    return new LaneSnapshot(
        s.position(), rate * PROJECTION_FACTOR, s.meanProcessingMillis(), s.etaSeconds(), s.atEpochMillis());
  }

  /**
   * A stub whose next call carries {@code summary} (the Web UI's "Events with Metadata"); timeouts and retries
   * still come from the per-type options of application.yml, which an explicit stub is merged with.
   */
  private static <T> T summarized(Class<T> activities, String summary) {
    return Workflow.newActivityStub(activities, ActivityOptions.newBuilder().setSummary(summary).build());
  }

  /** "waiting for model lane model-primary, position 12, about 40 s": one line for a person in the Web UI. */
  private void describeWait() {
    details(
        "waiting for model lane " + laneEntry.lane() + ", position " + queued.position() + ", about "
            + (long) Math.ceil(queued.etaSeconds()) + " s");
  }

  /**
   * The workflow's current details (Web UI "Current Details", {@code temporal workflow describe}): kept in the
   * workflow's state and served by a query, so updating it writes no history event.
   */
  private static void details(String text) {
    Workflow.setCurrentDetails(text);
  }

  private void leaveQueue() {
    if (queued != null) {
      queued = null;
      details("asking the model (lane " + laneEntry.lane() + ")");
      stage = Stage.PROCESSING;
      Workflow.upsertTypedSearchAttributes(SearchAttributes.STAGE.valueSet(stage.name()));
    }
  }

  private Duration budgetLeft(QuestionPolicy policy) {
    long deadline = processingStartedAt + policy.chainBudgetSeconds() * 1000;
    return Duration.ofMillis(Math.max(0, deadline - Workflow.currentTimeMillis()));
  }

  private boolean overBudget(QuestionPolicy policy) {
    return budgetLeft(policy).isZero();
  }

  /** The FAQ entry's standard answer (L3/L4): rendered by the template stage, or taken as is if that fails. */
  private Answer faqAnswer(Question question, RetrievalResult found, String reason) {
    // the hot-entry cache needs no embedding model either: it is a keyword-level (L4) answer
    AnswerLevel level =
        RetrievalResult.SEMANTIC.equals(found.method()) ? AnswerLevel.FAQ : AnswerLevel.KEYWORD;
    try {
      return templates
          .renderFaqAnswer(new TemplateRequest(found.best().faqId(), question.channel(), reason, level))
          .withReason(reason);
    } catch (ActivityFailure e) {
      log.warn("template stage failed, giving the standard reply: {}", failureType(e));
      return new Answer(
          found.best().answer(), level, found.best().faqId(), null, STANDARD_REPLY_NOTICE,
          reason + "; template: " + failureType(e));
    }
  }

  private Answer handOver(
      Question question, RetrievalResult found, QuestionPolicy policy, String reason) {
    String workflowId = Workflow.getInfo().getWorkflowId();
    List<String> candidates = found.hits().stream().map(FaqHit::faqId).toList();
    TicketRef ticket =
        summarized(TicketActivities.class, "hand over to a person (intent " + intent + ", priority " + priority + ")")
            .openTicket(
            new TicketRequest(
                workflowId,
                question.sessionId(),
                question.userId(),
                question.text(),
                intent,
                question.priority(),
                candidates,
                reason,
                question.caller()));
    ticketId = ticket.ticketId();
    details("handing ticket " + ticketId + " to the helpdesk");
    deliverOrDeadLetter(workflowId, policy);

    Answer handedOver =
        new Answer(
            policy.promisedReplyText(), AnswerLevel.TICKET, null, ticketId, "Handed over to a person.", reason);
    finish(handedOver, Stage.TICKETED);
    details(
        "ticket " + ticketId + " open, waiting for a staff reply (at most "
            + Duration.ofSeconds(policy.humanReplyWindowSeconds()).toHours() + " h)");

    boolean replied =
        Workflow.await(Duration.ofSeconds(policy.humanReplyWindowSeconds()), () -> staffReply != null);
    if (!replied) {
      return handedOver;
    }
    summarized(TicketActivities.class, "record " + staffReply.agent() + "'s reply on ticket " + ticketId)
        .closeTicket(new TicketClosing(ticketId, staffReply.agent(), staffReply.text()));
    return finish(
        new Answer(staffReply.text(), AnswerLevel.HUMAN, null, ticketId, null, null), Stage.ANSWERED);
  }

  /**
   * Saga: the ticket is in our inbox (step 1); delivering it to the helpdesk (step 2) may fail after its retries.
   * Then the compensation marks the inbox ticket undelivered and a dead-letter workflow takes over redelivery, so
   * the ticket is never lost and the customer is not kept waiting for the helpdesk.
   */
  private void deliverOrDeadLetter(String workflowId, QuestionPolicy policy) {
    String[] deliveryError = new String[1];
    Saga saga = new Saga(new Saga.Options.Builder().build());
    saga.addCompensation(
        () -> tickets.markTicketUndelivered(new TicketUndelivered(ticketId, deliveryError[0])));
    try {
      summarized(TicketActivities.class, "deliver ticket " + ticketId + " to the helpdesk").deliverTicket(ticketId);
    } catch (ActivityFailure e) {
      deliveryError[0] = failureMessage(e);
      log.error("helpdesk did not take ticket {}: {}; compensating", ticketId, deliveryError[0]);
      saga.compensate();
      startDeadLetter(workflowId, deliveryError[0], policy);
    }
  }

  private void startDeadLetter(String workflowId, String error, QuestionPolicy policy) {
    DeadLetterTicketWorkflow deadLetter =
        Workflow.newChildWorkflowStub(
            DeadLetterTicketWorkflow.class,
            ChildWorkflowOptions.newBuilder()
                .setWorkflowId(DeadLetterTicketWorkflow.workflowIdFor(ticketId))
                // it must outlive this question workflow (which may end long before the helpdesk is back)
                .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON)
                .build());
    Async.function(
        deadLetter::redeliver, new DeadLetter(ticketId, workflowId, error, 0, policy.deadLetter()));
    try {
      Workflow.getWorkflowExecution(deadLetter).get();
    } catch (ChildWorkflowFailure e) {
      // already started for this ticket (e.g. this question was reset and re-run): that one carries on
      log.warn("dead-letter workflow for ticket {} not started: {}", ticketId, e.getMessage());
    }
  }

  private Answer finish(Answer result, Stage finalStage) {
    finishSessionTurn(result);
    answer = result;
    stage = finalStage;
    details(
        finalStage == Stage.TICKETED
            ? "handed over as ticket " + result.ticketId()
            : "answered at " + result.level() + " level" + (result.reason() == null ? "" : " (" + result.reason() + ")"));
    Workflow.upsertTypedSearchAttributes(
        SearchAttributes.ANSWER_LEVEL.valueSet(result.level().name()),
        SearchAttributes.STAGE.valueSet(finalStage.name()));
    recordMetrics(result);
    // one line per outcome (replay-safe logger: not repeated on replay); the MDC has WorkflowId and requestId
    log.info("{} at {} level{}", finalStage, result.level(), result.reason() == null ? "" : ": " + result.reason());
    return result;
  }

  /** Replay-safe metrics (the SDK's workflow metrics scope skips them during replay). */
  private void recordMetrics(Answer result) {
    var scope = Workflow.getMetricsScope().tagged(Map.of("level", result.level().name()));
    scope.counter("cs_answer_total").inc(1);
    if (result.notice() != null) {
      scope.counter("cs_answer_degraded_total").inc(1);
      // per stage that failed on the way ("primary model: ModelServerError; retrieval: ..."), for the SPEC's
      // "degradation rate of a stage" alerts
      for (String stage : degradedStages(result.reason())) {
        Workflow.getMetricsScope().tagged(Map.of("stage", stage)).counter("cs_stage_degraded_total").inc(1);
      }
    }
    scope
        .timer("cs_answer_elapsed")
        .record(
            com.uber.m3.util.Duration.ofMillis(Workflow.currentTimeMillis() - processingStartedAt));
  }

  /** The stages named in a reason ("primary model: X; retrieval: Y" -> primary_model, retrieval), each once. */
  static java.util.Set<String> degradedStages(String reason) {
    java.util.Set<String> stages = new java.util.TreeSet<>();
    if (reason == null) {
      return stages;
    }
    for (String problem : reason.split("; ")) {
      int colon = problem.indexOf(':');
      if (colon > 0) {
        stages.add(problem.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT).replace(' ', '_'));
      }
    }
    return stages;
  }

  private static String reason(List<String> problems) {
    return problems.isEmpty() ? null : String.join("; ", problems);
  }

  /** The failure's type for people and metrics: the ApplicationFailure type, or the kind of timeout. */
  static String failureType(ActivityFailure e) {
    Throwable cause = e.getCause();
    if (cause instanceof ApplicationFailure af) {
      return af.getType();
    }
    if (cause instanceof TimeoutFailure tf) {
      return "Timeout(" + tf.getTimeoutType().name().replace("TIMEOUT_TYPE_", "") + ")";
    }
    return cause == null ? e.getMessage() : cause.getClass().getSimpleName();
  }

  private static String failureMessage(ActivityFailure e) {
    Throwable cause = e.getCause();
    String type = failureType(e);
    return cause == null || cause.getMessage() == null ? type : type + ": " + cause.getMessage();
  }

  @Override
  public void sessionTurnReady(String finishedWorkflowId) {
    if (finishedWorkflowId != null) {
      finishedInSession.add(finishedWorkflowId);
    }
  }

  @Override
  public QuestionStatus status(Long asOfEpochMillis) {
    LaneSnapshot q = queued;
    if (stage == Stage.WAITING_IN_QUEUE && q != null) {
      long at = asOfEpochMillis == null ? q.atEpochMillis() : asOfEpochMillis;
      long position = q.positionAt(at);
      return new QuestionStatus(
          Workflow.getInfo().getWorkflowId(),
          stage,
          (int) (position <= NEAR_FRONT ? 0 : position),
          (int) Math.ceil(q.etaAt(at)),
          intent,
          answer);
    }
    return new QuestionStatus(Workflow.getInfo().getWorkflowId(), stage, null, null, intent, answer);
  }

  @Override
  public void staffReply(StaffReply reply) {
    // Only the first reply to this question's own ticket counts; later ones are ignored, not errors.
    if (staffReply == null && ticketId != null && ticketId.equals(reply.ticketId())) {
      staffReply = reply;
    }
  }
}
