package dev.questionflow.workflows.question;

import dev.questionflow.workflows.generation.GenerationActivities;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.generation.ModelFailures;
import dev.questionflow.workflows.lane.LaneActivities;
import dev.questionflow.workflows.lane.LaneEntry;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.lane.Priorities;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.Priority;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * A model's answer through its lane: the call goes to the lane's task queue (whose server-side rate
 * limit is the model's quota) with the question's priority, joins the lane's ledger for a queue
 * position, and must start by the question's queue deadline: a question whose projected wait does
 * not fit its patience is not put in line at all, and a standard one may stand behind the new
 * questions ({@link LaneAdmission}); one still in line at its deadline leaves it without a call
 * (the server's schedule-to-start timeout, or the lane gate's own check right before the HTTP
 * call). Either way its customer gets the answer prepared below the model at once. {@link LaneLine}
 * keeps its place in the line meanwhile.
 */
final class ModelLane {

  private static final Logger log = Workflow.getLogger(ModelLane.class);

  /**
   * Version 1: every question has a queue deadline (the moment its customer began waiting plus its
   * patience) and is admitted to a lane only when its projected wait fits it; asked once per
   * question, before the model step, so questions from before it take {@link
   * LaneCallsBeforeDeadlines}.
   */
  static final String QUEUE_DEADLINES = "queue-deadlines";

  private final LaneActivities ledger = Workflow.newLocalActivityStub(LaneActivities.class);
  private final QuestionPolicy policy;
  private final ChainBudget budget;
  private final LaneLine line;
  private final LaneCallsBeforeDeadlines before;

  /** The deadline of the call in line now (0: none), for the status. */
  private long deadlineShown;

  /** Whether the last call left its lane without reaching the model (shed or at its deadline). */
  private boolean busy;

  /** The deadline last counted as shed: a question shed by both models counts once. */
  private QueueDeadline counted;

  /** Completed when the customer asked again; then {@link #answerNow} runs once (null: ran). */
  private Promise<Void> askedAgain;

  private Runnable answerNow;

  ModelLane(QuestionPolicy policy, ChainBudget budget, Progress progress) {
    this.policy = policy;
    this.budget = budget;
    this.line = new LaneLine(ledger, progress, Duration.ofSeconds(policy.laneRefreshSeconds()));
    this.before =
        new LaneCallsBeforeDeadlines(
            Workflow.newActivityStub(GenerationActivities.class),
            ledger,
            policy,
            budget,
            line,
            progress);
  }

  /** The queue projection while waiting for the lane, else null. */
  LaneSnapshot waiting() {
    return line.shown();
  }

  /** The queue deadline of the call in line now; 0 when none is. */
  long deadline() {
    return deadlineShown;
  }

  /**
   * When the customer asks again while a model's call of the question is on its way, {@code
   * answerNow} gives the answer ready below the model; the call goes on, for a fuller answer.
   */
  void whenAskedAgain(Promise<Void> askedAgain, Runnable answerNow) {
    this.askedAgain = askedAgain;
    this.answerNow = answerNow;
  }

  /** Whether the model was too busy for the question: its answer should say so. */
  boolean busy() {
    return busy;
  }

  /**
   * The model's answer without a queue deadline (questions from before {@link #QUEUE_DEADLINES}),
   * or null when it failed, is not configured or the budget ran out (added to problems).
   */
  GenerationResult generate(
      String model, GenerationRequest request, int priority, Problems problems) {
    Duration left = budget.left();
    if (left.isZero()) {
      problems.add(model + " model", "skipped, chain budget used up");
      return null;
    }
    return ModelOutcome.of(
        model, budget.seconds(), before.call(model, request, priority, left), problems);
  }

  /**
   * The model's answer if its call starts by the deadline, or null (added to problems): shed at
   * admission, past the deadline in line, failed, or over the chain budget once it started.
   */
  GenerationResult generate(
      String model,
      GenerationRequest request,
      int priority,
      Problems problems,
      QueueDeadline deadline) {
    String laneQueue = policy.lanes().get(model);
    if (laneQueue == null) {
      return generate(model, request, priority, problems); // no lane: no line to wait in
    }
    long left = deadline.atEpochMillis() - Workflow.currentTimeMillis();
    LaneEntry asked =
        new LaneEntry(
            laneQueue,
            Priorities.ledgerMember(
                Workflow.getInfo().getWorkflowId(), Priorities.toTemporalKey(priority)),
            Priorities.toTemporalKey(priority),
            deadline.atEpochMillis());
    if (left <= 0) {
      return shed(model, "deadline", deadline, problems, "queue deadline passed, not called");
    }
    LaneAdmission.Decision admitted =
        deadline.mayShed() // else the model is its only answer: it waits for it
            ? LaneAdmission.decide(ledger, asked, left)
            : new LaneAdmission.Decision(asked, 0);
    if (!admitted.joins()) {
      return shed(model, "eta", deadline, problems, admitted.why(left));
    }
    LaneEntry entry = admitted.entry();
    Priority lanePriority = Priority.newBuilder().setPriorityKey(entry.priorityKey()).build();
    GenerationActivities stub =
        Workflow.newActivityStub(
            GenerationActivities.class,
            ActivityOptions.newBuilder()
                .setTaskQueue(laneQueue)
                .setPriority(lanePriority)
                // not started by the deadline: the server gives the call up (never retried)
                .setScheduleToStartTimeout(Duration.ofMillis(left))
                // and its attempts end within the chain budget after that
                .setScheduleToCloseTimeout(Duration.ofMillis(left).plusSeconds(budget.seconds()))
                .setSummary(model + " model on lane " + laneQueue + ", priority " + priority)
                .build());
    LaneActivities entries =
        Workflow.newActivityStub(
            LaneActivities.class, ActivityOptions.newBuilder().setPriority(lanePriority).build());
    if (!deadline.upgrade()) {
      deadlineShown = deadline.atEpochMillis();
      Progress.details("asking the " + model + " model (lane " + laneQueue + ")");
    } else {
      Progress.details("answered; asking the " + model + " model for a fuller answer");
    }
    // no timer: the activity abandons a call that runs past the chain budget, and the call's
    // schedule-to-close (its wait plus the chain budget) bounds its attempts
    line.until(deadline.atEpochMillis());
    Promise<GenerationResult> call =
        line.callInLine(
            stub,
            request.withLimits(deadline.atEpochMillis(), budget.seconds() * 1000),
            entries,
            entry,
            null,
            !deadline.upgrade(),
            deadline.upgrade() || answerNow == null ? null : askedAgain);
    deadlineShown = 0;
    if (!call.isCompleted()) { // asked again: the answer ready now, the model's when it comes
      answerNow.run();
      answerNow = null;
      Workflow.await(call::isCompleted);
    }
    String failure = ModelOutcome.failureType(call);
    if (failure != null
        && (failure.startsWith("Timeout(SCHEDULE_TO_START")
            || ModelFailures.ATTEMPT_ENDING.equals(failure))) {
      // no call ran that could take the question out of the ledger: it leaves here
      quietly(() -> ledger.leaveLane(entry));
    }
    if (ModelFailures.QUEUE_DEADLINE.equals(failure)
        || failure != null && failure.startsWith("Timeout(SCHEDULE_TO_START")) {
      return shed(model, "deadline", deadline, problems, "reached its queue deadline in line");
    }
    return ModelOutcome.of(model, budget.seconds(), call, problems);
  }

  /** The question leaves the model's line, or never joins it, and is answered below the model. */
  private GenerationResult shed(
      String model, String reason, QueueDeadline deadline, Problems problems, String detail) {
    busy = true;
    problems.add(model + " model", detail);
    if (counted != deadline) {
      counted = deadline;
      Workflow.getMetricsScope()
          .tagged(Map.of("lane", model, "reason", reason, "tier", deadline.tier()))
          .counter("cs_answer_shed_total")
          .inc(1);
    }
    log.info("{} model: {}", model, detail);
    return null;
  }

  private static void quietly(Runnable ledgerCall) {
    try {
      ledgerCall.run();
    } catch (ActivityFailure e) {
      log.warn("lane ledger unavailable, entry left to expire: {}", Problems.failureType(e));
    }
  }

  /**
   * The ledger's answer, or none: a ledger failure only costs the queue position, never the answer.
   */
  static LaneSnapshot snapshotOrNone(Supplier<LaneSnapshot> ask) {
    return outcomeOrNone(ask);
  }

  static <T> T outcomeOrNone(Supplier<T> ask) {
    try {
      return ask.get();
    } catch (ActivityFailure e) {
      log.warn("lane ledger unavailable, no queue position: {}", Problems.failureType(e));
      return null;
    }
  }
}
