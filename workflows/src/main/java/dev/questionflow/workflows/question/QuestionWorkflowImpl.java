package dev.questionflow.workflows.question;

import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.generation.ModelFailures;
import dev.questionflow.workflows.intent.IntentActivities;
import dev.questionflow.workflows.intent.IntentResult;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.lane.Priorities;
import dev.questionflow.workflows.retrieval.FaqHit;
import dev.questionflow.workflows.retrieval.RetrievalActivities;
import dev.questionflow.workflows.retrieval.RetrievalRequest;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import dev.questionflow.workflows.session.SessionKeys;
import dev.questionflow.workflows.template.TemplateActivities;
import dev.questionflow.workflows.template.TemplateRequest;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.List;
import org.slf4j.Logger;

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

  private static final Logger log = Workflow.getLogger(QuestionWorkflowImpl.class);
  private static final int TOP_K = 3;
  static final String NO_KNOWLEDGE_NOTICE =
      "Answered without our knowledge base, which is unavailable right now.";
  static final String STANDARD_REPLY_NOTICE = "Simplified mode: this is our standard answer.";
  static final String COMPLAINT_INTENT = "complaint";

  /**
   * Version 1: the chain budget starts again after waiting for the session's earlier question
   * (waiting is not processing). Asked only by questions that waited, so other histories carry no
   * marker.
   */
  static final String BUDGET_AFTER_SESSION_WAIT = "budget-after-session-wait";

  /**
   * Version 1: search attributes the API set at start are not set again, and the stage and intent
   * are held until the next change a person can see ({@link Progress#holdUpserts}): an answer from
   * the FAQ costs one upsert instead of three.
   */
  static final String FEWER_UPSERTS = "fewer-upserts";

  private final IntentActivities intents = Workflow.newLocalActivityStub(IntentActivities.class);
  private final RetrievalActivities retrieval =
      Workflow.newLocalActivityStub(RetrievalActivities.class);
  private final TemplateActivities templates =
      Workflow.newLocalActivityStub(TemplateActivities.class);
  private final Progress progress = new Progress();
  private final SessionTurns sessions = new SessionTurns();
  private final Handover handover = new Handover();
  private ModelLane lane;
  private Outcome outcome;
  private String intent;

  /** What the intent step reported of the models' health (see IntentResult#modelsDown). */
  private IntentResult modelsReported;

  private int priority;

  @Override
  public Answer answer(Question question) {
    QuestionPolicy policy =
        question.policy() == null ? QuestionPolicy.defaults() : question.policy();
    ChainBudget budget = new ChainBudget(policy.chainBudgetSeconds());
    outcome = new Outcome(sessions, progress, Workflow.currentTimeMillis());
    lane = new ModelLane(policy, budget, progress);
    // the line and the history are per caller, user and session (no new command: old histories
    // replay)
    String sessionKey = SessionKeys.of(question.caller(), question.userId(), question.sessionId());
    priority = question.priority();
    progress.set(Stage.PROCESSING);
    if (Workflow.getVersion(FEWER_UPSERTS, Workflow.DEFAULT_VERSION, 1) == 1) {
      progress.holdUpserts();
      progress.update(SearchAttributes.STAGE.valueSet(Stage.PROCESSING.name()));
      if (!startedWithAttributesOf(question)) {
        progress.update(startAttributes(question));
      }
    } else {
      // also set by the API at start; repeated here so workflows started from elsewhere (CLI,
      // tests) carry them
      progress.update(
          SearchAttributes.CUSTOMER_ID.valueSet(question.userId()),
          SearchAttributes.SESSION_ID.valueSet(question.sessionId()),
          SearchAttributes.PRIORITY.valueSet((long) question.priority()),
          SearchAttributes.STAGE.valueSet(Stage.PROCESSING.name()));
    }
    Problems problems = new Problems();
    if (sessions.awaitTurn(sessionKey, question.text(), policy)
        && Workflow.getVersion(BUDGET_AFTER_SESSION_WAIT, Workflow.DEFAULT_VERSION, 1) == 1) {
      budget.restart();
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
    modelsReported = classified;
    if (COMPLAINT_INTENT.equals(intent)) {
      priority =
          Math.max(
              priority, Priorities.COMPLAINT); // complaints are served before standard questions
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

    GenerationResult generated =
        generate(ModelFailures.PRIMARY, question.text(), found, sessionKey, problems);
    // an answer the output checks rejected was talked into it by the question: the backup model
    // would be asked the same question, so the FAQ answers instead (these failure types are newer
    // than every recorded history, so no version marker is needed)
    if (generated == null
        && policy.backupModel()
        && !budget.usedUp()
        && !problems.has(ModelLane.OUTPUT_CHECK)) {
      generated = generate(ModelFailures.BACKUP, question.text(), found, sessionKey, problems);
    }
    if (generated != null) {
      AnswerLevel level = found.matched() ? AnswerLevel.RAG : AnswerLevel.LLM;
      String faqId = found.matched() ? found.best().faqId() : null;
      String notice = withoutKnowledge ? NO_KNOWLEDGE_NOTICE : null;
      return outcome.finish(
          new Answer(generated.text(), level, faqId, null, notice, problems.reason()),
          Stage.ANSWERED,
          problems);
    }

    if (found.matched()) {
      return outcome.finish(faqAnswer(question, found, problems), Stage.ANSWERED, problems);
    }
    problems.note("no FAQ match");
    return handOver(question, found, policy, problems);
  }

  /** The API sets these when it starts the workflow; the CLI or a test may not. */
  private static boolean startedWithAttributesOf(Question question) {
    var given = Workflow.getTypedSearchAttributes();
    return question.userId().equals(given.get(SearchAttributes.CUSTOMER_ID))
        && question.sessionId().equals(given.get(SearchAttributes.SESSION_ID))
        && Long.valueOf(question.priority()).equals(given.get(SearchAttributes.PRIORITY));
  }

  private static SearchAttributeUpdate<?>[] startAttributes(Question question) {
    return new SearchAttributeUpdate<?>[] {
      SearchAttributes.CUSTOMER_ID.valueSet(question.userId()),
      SearchAttributes.SESSION_ID.valueSet(question.sessionId()),
      SearchAttributes.PRIORITY.valueSet((long) question.priority())
    };
  }

  private IntentResult classify(String text, Problems problems) {
    try {
      return intents.classifyIntent(text);
    } catch (ActivityFailure e) {
      problems.add("intent", Problems.failureType(e));
      log.warn("intent stage failed: {}", Problems.failureType(e));
      return null;
    }
  }

  private RetrievalResult retrieve(String text, Problems problems) {
    try {
      return retrieval.retrieveFaq(new RetrievalRequest(text, TOP_K));
    } catch (ActivityFailure e) {
      problems.add("retrieval", Problems.failureType(e));
      log.warn("retrieval stage failed: {}", Problems.failureType(e));
      return null;
    }
  }

  /**
   * One model's answer through its lane, grounded in the best FAQ match if there is one; null when
   * it failed.
   */
  private GenerationResult generate(
      String model, String text, RetrievalResult found, String sessionKey, Problems problems) {
    // a model known to be unable to answer gets no lane entry, call or timer: the question goes
    // straight down the ladder. Histories from before the report carry none, and call as they did.
    String down = modelsReported == null ? null : modelsReported.whyDown(model);
    if (down != null) {
      problems.add(model + " model", down);
      return null;
    }
    List<FaqHit> knowledge = found.matched() ? List.of(found.best()) : List.of();
    return lane.generate(
        model, new GenerationRequest(text, knowledge, model, sessionKey), priority, problems);
  }

  /**
   * The FAQ entry's standard answer (L3/L4): rendered by the template stage, or taken as is if that
   * fails.
   */
  private Answer faqAnswer(Question question, RetrievalResult found, Problems problems) {
    // the hot-entry cache needs no embedding model either: it is a keyword-level (L4) answer
    AnswerLevel level =
        RetrievalResult.SEMANTIC.equals(found.method()) ? AnswerLevel.FAQ : AnswerLevel.KEYWORD;
    String reason = problems.reason();
    try {
      return templates
          .renderFaqAnswer(
              new TemplateRequest(found.best().faqId(), question.channel(), reason, level))
          .withReason(reason);
    } catch (ActivityFailure e) {
      log.warn("template stage failed, giving the standard reply: {}", Problems.failureType(e));
      problems.add("template", Problems.failureType(e));
      return new Answer(
          found.best().answer(),
          level,
          found.best().faqId(),
          null,
          STANDARD_REPLY_NOTICE,
          problems.reason());
    }
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
  public void staffReply(StaffReply reply) {
    handover.staffReply(reply);
  }

  @Override
  public QuestionStatus status(Long asOfEpochMillis) {
    String workflowId = Workflow.getInfo().getWorkflowId();
    Answer answer = outcome == null ? null : outcome.answer();
    LaneSnapshot queued = lane == null ? null : lane.waiting();
    if (progress.stage() == Stage.WAITING_IN_QUEUE && queued != null) {
      long at = asOfEpochMillis == null ? queued.atEpochMillis() : asOfEpochMillis;
      return QuestionStatus.waiting(workflowId, queued.positionAt(at), queued.etaAt(at), intent);
    }
    return new QuestionStatus(workflowId, progress.stage(), null, null, intent, answer);
  }
}
