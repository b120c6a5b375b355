package dev.questionflow.workflows.question;

import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.generation.GenerationActivities;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.intent.IntentActivities;
import dev.questionflow.workflows.intent.IntentResult;
import dev.questionflow.workflows.retrieval.FaqHit;
import dev.questionflow.workflows.retrieval.RetrievalActivities;
import dev.questionflow.workflows.retrieval.RetrievalRequest;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import dev.questionflow.workflows.template.TemplateActivities;
import dev.questionflow.workflows.template.TemplateRequest;
import dev.questionflow.workflows.ticket.TicketActivities;
import dev.questionflow.workflows.ticket.TicketClosing;
import dev.questionflow.workflows.ticket.TicketRef;
import dev.questionflow.workflows.ticket.TicketRequest;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;

/**
 * Walks a question down the ladder: intent, retrieval, generation (RAG or LLM only), the FAQ standard answer,
 * and finally a ticket answered by a person. Activity options come from WorkflowImplementationOptions (declared
 * per stage in application.yml), so none are hard-coded here.
 */
public class QuestionWorkflowImpl implements QuestionWorkflow {

  private static final Logger log = Workflow.getLogger(QuestionWorkflowImpl.class);
  private static final int TOP_K = 3;

  private final IntentActivities intents = Workflow.newActivityStub(IntentActivities.class);
  private final RetrievalActivities retrieval = Workflow.newActivityStub(RetrievalActivities.class);
  private final GenerationActivities generation = Workflow.newActivityStub(GenerationActivities.class);
  private final TemplateActivities templates = Workflow.newActivityStub(TemplateActivities.class);
  private final TicketActivities tickets = Workflow.newActivityStub(TicketActivities.class);

  private Stage stage = Stage.RECEIVED;
  private String intent;
  private Answer answer;
  private StaffReply staffReply;
  private String ticketId;

  @Override
  public Answer answer(Question question) {
    // also set by the API at start; repeated here so workflows started from elsewhere (CLI, tests) carry them
    stage = Stage.PROCESSING;
    Workflow.upsertTypedSearchAttributes(
        SearchAttributes.CUSTOMER_ID.valueSet(question.userId()),
        SearchAttributes.SESSION_ID.valueSet(question.sessionId()),
        SearchAttributes.PRIORITY.valueSet((long) question.priority()),
        SearchAttributes.STAGE.valueSet(stage.name()));

    IntentResult classified = classify(question.text());
    intent = classified.intent();
    Workflow.upsertTypedSearchAttributes(SearchAttributes.INTENT.valueSet(intent));

    RetrievalResult found = retrieve(question.text());
    String reason;
    GenerationResult generated = generate(question.text(), found);
    if (generated != null && generated.answered()) {
      AnswerLevel level = found.matched() ? AnswerLevel.RAG : AnswerLevel.LLM;
      String faqId = found.matched() ? found.best().faqId() : null;
      return finish(new Answer(generated.text(), level, faqId, null, null), Stage.ANSWERED);
    }
    reason = generated == null ? "model failed" : "model not configured";

    if (found.matched()) {
      AnswerLevel level = RetrievalResult.KEYWORD.equals(found.method()) ? AnswerLevel.KEYWORD : AnswerLevel.FAQ;
      Answer faq =
          templates.renderFaqAnswer(new TemplateRequest(found.best().faqId(), question.channel(), reason, level));
      return finish(faq, Stage.ANSWERED);
    }
    return handOver(question, found, reason + ", no FAQ match");
  }

  private IntentResult classify(String text) {
    try {
      return intents.classifyIntent(text);
    } catch (ActivityFailure e) {
      log.warn("intent stage failed, using default intent: {}", e.getCause().getMessage());
      return new IntentResult(IntentActivities.DEFAULT_INTENT, "default");
    }
  }

  private RetrievalResult retrieve(String text) {
    try {
      return retrieval.retrieveFaq(new RetrievalRequest(text, TOP_K));
    } catch (ActivityFailure e) {
      log.warn("retrieval stage failed, continuing without knowledge: {}", e.getCause().getMessage());
      return RetrievalResult.none("failed");
    }
  }

  /** Returns null when the model call failed after its retry policy. */
  private GenerationResult generate(String text, RetrievalResult found) {
    List<FaqHit> knowledge = found.matched() ? List.of(found.best()) : List.of();
    try {
      return generation.generateAnswer(new GenerationRequest(text, knowledge, dev.questionflow.workflows.generation.ModelFailures.PRIMARY));
    } catch (ActivityFailure e) {
      log.warn("generation stage failed, falling down the ladder: {}", e.getCause().getMessage());
      return null;
    }
  }

  private Answer handOver(Question question, RetrievalResult found, String reason) {
    String workflowId = Workflow.getInfo().getWorkflowId();
    List<String> candidates = found.hits().stream().map(FaqHit::faqId).toList();
    TicketRef ticket =
        tickets.openTicket(
            new TicketRequest(
                workflowId,
                question.sessionId(),
                question.userId(),
                question.text(),
                intent,
                question.priority(),
                candidates,
                reason));
    ticketId = ticket.ticketId();
    QuestionPolicy policy = question.policy() == null ? QuestionPolicy.defaults() : question.policy();
    Answer handedOver =
        new Answer(policy.promisedReplyText(), AnswerLevel.TICKET, null, ticketId, "Handed over to a person.");
    publish(handedOver, Stage.TICKETED);

    boolean replied =
        Workflow.await(Duration.ofSeconds(policy.humanReplyWindowSeconds()), () -> staffReply != null);
    if (!replied) {
      return handedOver;
    }
    tickets.closeTicket(new TicketClosing(ticketId, staffReply.agent(), staffReply.text()));
    return finish(new Answer(staffReply.text(), AnswerLevel.HUMAN, null, ticketId, null), Stage.ANSWERED);
  }

  private Answer finish(Answer result, Stage finalStage) {
    publish(result, finalStage);
    return result;
  }

  private void publish(Answer result, Stage newStage) {
    answer = result;
    stage = newStage;
    Workflow.upsertTypedSearchAttributes(
        SearchAttributes.ANSWER_LEVEL.valueSet(result.level().name()),
        SearchAttributes.STAGE.valueSet(newStage.name()));
  }

  @Override
  public QuestionStatus status() {
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
