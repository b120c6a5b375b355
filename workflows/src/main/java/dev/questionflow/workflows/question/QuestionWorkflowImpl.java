package dev.questionflow.workflows.question;

import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.generation.ModelFailures;
import dev.questionflow.workflows.intent.IntentActivities;
import dev.questionflow.workflows.intent.IntentResult;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.lane.Priorities;
import dev.questionflow.workflows.outcome.QuestionRecords;
import dev.questionflow.workflows.retrieval.RetrievalActivities;
import dev.questionflow.workflows.retrieval.RetrievalRequest;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import dev.questionflow.workflows.session.SessionKeys;
import dev.questionflow.workflows.status.StatusBeacon;
import io.temporal.workflow.CompletablePromise;
import io.temporal.workflow.Workflow;
import java.util.List;

/**
 * Walks a question down the ladder: intent, retrieval, generation with the primary and then the
 * backup model (RAG or LLM only) inside the chain budget, the FAQ standard answer (semantic or
 * keyword level), and finally a ticket answered by a person. Activity options come from
 * WorkflowImplementationOptions (declared per stage in application.yml), so none are hard-coded
 * here. A model whose circuit is open fails its activity at once ({@link
 * ModelFailures#CIRCUIT_OPEN}, not retried), so such questions reach the FAQ level without waiting.
 *
 * <p>The rungs that take more than a call live beside it: {@link SessionTurns} (order within a
 * session), {@link ModelLane} (the model call through its lane, with the queue position), {@link
 * Handover} (ticket, saga, dead letter, staff reply) and {@link Outcome} (the answer recorded,
 * shown and counted).
 */
public class QuestionWorkflowImpl implements QuestionWorkflow {

  private static final int TOP_K = 3;
  static final String NO_KNOWLEDGE_NOTICE =
      "Answered without our knowledge base, which is unavailable right now.";
  static final String STANDARD_REPLY_NOTICE = "Simplified mode: this is our standard answer.";
  static final String BUSY_NOTICE =
      "Our assistant is busy right now, so this is our standard answer.";
  static final String COMPLAINT_INTENT = "complaint";

  private final IntentActivities intents = Workflow.newLocalActivityStub(IntentActivities.class);
  private final RetrievalActivities retrieval =
      Workflow.newLocalActivityStub(RetrievalActivities.class);
  private final FaqRung faq = new FaqRung();
  private final Progress progress = new Progress();
  private final SessionTurns sessions = new SessionTurns();
  private final Handover handover = new Handover();
  private ModelLane lane;
  private Outcome outcome;
  private String intent;

  /** What the intent step reported of the models' health (see IntentResult#modelsDown). */
  private IntentResult modelsReported;

  private int priority;
  private final CompletablePromise<Void> askedAgain = Workflow.newPromise();

  @Override
  public Answer answer(Question question) {
    QuestionPolicy policy =
        question.policy() == null ? QuestionPolicy.defaults() : question.policy();
    ChainBudget budget = new ChainBudget(policy.chainBudgetSeconds());
    outcome =
        new Outcome(sessions, progress, Workflow.currentTimeMillis())
            .withCallbacks(Callbacks.of(question.caller(), question.callback(), () -> intent));
    lane = new ModelLane(policy, budget, progress);
    // the line and the history are per caller, user and session (no new command: old histories
    // replay)
    String sessionKey = SessionKeys.of(question.caller(), question.userId(), question.sessionId());
    priority = question.priority();
    progress.begin(question);
    // what the worker publishes at each visible change (workflow-local: no command)
    StatusBeacon.follow(() -> status(null));
    // the analytics record's facts (workflow-local: no command, see QuestionRecords)
    QuestionRecords.current()
        .asked(question.caller(), question.tier() == null ? null : question.tier().name());
    Problems problems = new Problems();
    if (sessions.awaitTurn(sessionKey, question.text(), policy)) {
      budget.restartAfterSessionWait();
    }

    Progress.details("classifying the intent and searching the FAQ");
    IntentResult classified = classify(question.text(), problems);
    if (classified == null) {
      if (policy.criticalStages().contains("intent")) {
        return handOver(question, RetrievalResult.none("skipped"), policy, problems);
      }
      classified = new IntentResult(IntentActivities.DEFAULT_INTENT, "default");
    }
    intent = classified.intent();
    QuestionRecords.current().intent(intent);
    modelsReported = classified;
    if (COMPLAINT_INTENT.equals(intent)) { // complaints are served before standard questions
      priority = Math.max(priority, Priorities.COMPLAINT);
    }
    progress.update(
        SearchAttributes.INTENT.valueSet(intent),
        SearchAttributes.PRIORITY.valueSet((long) priority));

    RetrievalResult found = retrieve(question.text(), problems);
    boolean withoutKnowledge = found == null;
    if (found == null) {
      if (policy.criticalStages().contains("retrieval")) {
        return handOver(question, RetrievalResult.none("failed"), policy, problems);
      }
      found = RetrievalResult.none("failed");
    }

    // the customer's deadline in the models' lines; with an FAQ match the answer below the model
    // is ready, so a question whose wait would not fit is answered from it at once (shed)
    QueueDeadline deadline = null;
    if (Workflow.getVersion(ModelLane.QUEUE_DEADLINES, Workflow.DEFAULT_VERSION, 1) == 1) {
      outcome.recordFirstAnswer(QueueDeadline.tierOf(question));
      deadline =
          QueueDeadline.of(
              policy, found.matched(), QueueDeadline.tierOf(question), budget.waitingSince());
      if (found.matched()) { // a customer who asks again while the model works gets it at once
        Answer ready = FaqRung.askedAgain(found, problems);
        lane.whenAskedAgain(askedAgain, () -> outcome.answerFirst(ready, problems));
      }
    }
    GenerationResult generated =
        generate(ModelFailures.PRIMARY, question.text(), found, sessionKey, problems, deadline);
    // an answer the output checks rejected was talked into it by the question: the backup model
    // would be asked the same question, so the FAQ answers instead (these failure types are newer
    // than every recorded history, so no version marker is needed)
    if (generated == null
        && policy.backupModel()
        && !budget.usedUp()
        && !problems.has(ModelOutcome.OUTPUT_CHECK)) {
      generated =
          generate(ModelFailures.BACKUP, question.text(), found, sessionKey, problems, deadline);
    }
    Answer modelAnswer = ModelOutcome.answer(generated, found, withoutKnowledge, problems);
    if (outcome.upgrading()) { // asked again: the FAQ answer went first, the model's follows
      return outcome.endUpgrade(modelAnswer, problems);
    }
    if (modelAnswer != null) {
      return outcome.finish(modelAnswer, Stage.ANSWERED, problems);
    }

    if (found.matched()) {
      if (!lane.busy()) {
        return outcome.finish(faq.rendered(question, found, problems), Stage.ANSWERED, problems);
      }
      // prepared below the model, given without another activity: the model's line is too long
      Answer quick = FaqRung.prepared(found, problems).withNotice(BUSY_NOTICE);
      if (policy.upgradePatienceSeconds() == 0) {
        return outcome.finish(quick, Stage.ANSWERED, problems);
      }
      outcome.answerFirst(quick, problems);
      return upgrade(question.text(), found, sessionKey, withoutKnowledge, policy);
    }
    problems.note("no FAQ match");
    return handOver(question, found, policy, problems);
  }

  /**
   * The caller asked for a fuller answer after a quick one: the question stays in the primary's
   * line at the lowest priority (never ahead of a new question, shed first) for the upgrade's
   * patience; the model's answer becomes revision 2.
   */
  private Answer upgrade(
      String text,
      RetrievalResult found,
      String sessionKey,
      boolean withoutKnowledge,
      QuestionPolicy policy) {
    Problems later = new Problems();
    priority = Priorities.UPGRADE;
    GenerationResult fuller =
        generate(
            ModelFailures.PRIMARY, text, found, sessionKey, later, QueueDeadline.upgrade(policy));
    return outcome.endUpgrade(ModelOutcome.answer(fuller, found, withoutKnowledge, later), later);
  }

  private IntentResult classify(String text, Problems problems) {
    return problems.orNull("intent", () -> intents.classifyIntent(text));
  }

  private RetrievalResult retrieve(String text, Problems problems) {
    return problems.orNull(
        "retrieval", () -> retrieval.retrieveFaq(new RetrievalRequest(text, TOP_K)));
  }

  /**
   * One model's answer through its lane, grounded in the best FAQ match if there is one; null when
   * it failed or did not start by the deadline (null: a question from before deadlines).
   */
  private GenerationResult generate(
      String model,
      String text,
      RetrievalResult found,
      String sessionKey,
      Problems problems,
      QueueDeadline deadline) {
    // a model known to be unable to answer gets no lane entry, call or timer: the question goes
    // straight down the ladder. Histories from before the report carry none, and call as they did.
    String down = modelsReported == null ? null : modelsReported.whyDown(model);
    if (down != null) {
      problems.add(model + " model", down);
      return null;
    }
    GenerationRequest request =
        new GenerationRequest(
            text, found.matched() ? List.of(found.best()) : List.of(), model, sessionKey);
    return deadline == null
        ? lane.generate(model, request, priority, problems)
        : lane.generate(model, request, priority, problems, deadline);
  }

  private Answer handOver(
      Question question, RetrievalResult found, QuestionPolicy policy, Problems problems) {
    return handover.handOver(question, found, policy, problems, intent, priority, outcome);
  }

  @Override
  public void sessionTurnReady(String finishedWorkflowId) {
    sessions.finished(finishedWorkflowId);
  }

  @Override
  public void askedAgain() {
    askedAgain.complete(null);
  }

  @Override
  public void staffReply(StaffReply reply) {
    handover.staffReply(reply);
  }

  @Override
  public QuestionStatus status(Long asOfEpochMillis) {
    String workflowId = Workflow.getInfo().getWorkflowId();
    Answer answer = outcome == null ? null : outcome.answer();
    LaneSnapshot queued = lane == null ? null : lane.waiting();
    long deadline = lane == null ? 0 : lane.deadline();
    if (progress.stage() == Stage.WAITING_IN_QUEUE && queued != null) {
      long at = asOfEpochMillis == null ? queued.atEpochMillis() : asOfEpochMillis;
      return QuestionStatus.waiting(workflowId, queued.positionAt(at), queued.etaAt(at), intent)
          .withDeadline(deadline);
    }
    boolean upgrading = outcome != null && outcome.upgrading();
    return new QuestionStatus(
            workflowId, progress.stage(), null, null, intent, answer, null, upgrading)
        .withDeadline(deadline);
  }
}
