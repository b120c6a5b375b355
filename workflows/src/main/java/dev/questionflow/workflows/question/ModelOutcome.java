package dev.questionflow.workflows.question;

import dev.questionflow.workflows.generation.GenerationResult;
import dev.questionflow.workflows.generation.ModelFailures;
import dev.questionflow.workflows.outcome.QuestionRecords;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.Map;
import org.slf4j.Logger;

/** What a model call came to: its answer for the customer, or why there is none. */
final class ModelOutcome {

  private static final Logger log = Workflow.getLogger(ModelOutcome.class);

  /**
   * The stage of an answer the output checks rejected ({@link ModelFailures#OUTPUT_CHECKS}): the
   * model answered, but what it wrote must not reach the customer.
   */
  static final String OUTPUT_CHECK = "output check";

  private static final Map<String, String> OUTPUT_CHECK_DETAILS =
      Map.of(
          ModelFailures.PROMPT_LEAK, "prompt leak",
          ModelFailures.FOREIGN_LINK, "foreign link");

  /** The lane call's schedule-to-close: its wait in line plus the chain budget ran out. */
  private static final String BUDGET_TIMEOUT = "Timeout(SCHEDULE_TO_CLOSE)";

  private ModelOutcome() {}

  /** Why the completed call failed (its failure type), or null: it answered or is still running. */
  static String failureType(Promise<GenerationResult> call) {
    if (!call.isCompleted()) {
      return null;
    }
    return call.getFailure() instanceof ActivityFailure af ? Problems.failureType(af) : null;
  }

  /**
   * The call's result when the model answered; null (added to problems) when it failed, is not
   * configured, or the call did not complete within the chain budget.
   */
  static GenerationResult of(
      String model, long budgetSeconds, Promise<GenerationResult> call, Problems problems) {
    String stage = model + " model";
    String failure = failureType(call);
    if (!call.isCompleted()
        || BUDGET_TIMEOUT.equals(failure)
        || ModelFailures.OVER_BUDGET.equals(failure)) {
      problems.add(stage, "over the " + budgetSeconds + " s chain budget");
      Workflow.getMetricsScope()
          .tagged(Map.of("model", model))
          .counter("cs_budget_exceeded_total")
          .inc(1);
      log.warn(
          "{} model did not answer within the chain budget; answering from lower levels", model);
      return null;
    }
    try {
      GenerationResult result = call.get();
      if (!result.answered()) {
        problems.add(stage, GenerationResult.NOT_CONFIGURED_REASON);
        return null;
      }
      QuestionRecords.current()
          .answered(
              result.model(), result.promptTokens(), result.completionTokens(), result.cost());
      return result;
    } catch (ActivityFailure e) {
      String type = Problems.failureType(e);
      String rejected = OUTPUT_CHECK_DETAILS.get(type);
      if (rejected != null) {
        problems.add(OUTPUT_CHECK, rejected);
        log.warn("{} model's answer rejected by the output checks: {}", model, rejected);
        return null;
      }
      problems.add(stage, type);
      log.warn("{} model failed: {}", model, type);
      return null;
    }
  }

  /**
   * The model's answer as the customer gets it: RAG when grounded in an FAQ entry, else LLM (null:
   * no model answered).
   */
  static Answer answer(
      GenerationResult generated, RetrievalResult found, boolean withoutKnowledge, Problems p) {
    if (generated == null) {
      return null;
    }
    return new Answer(
        generated.text(),
        found.matched() ? AnswerLevel.RAG : AnswerLevel.LLM,
        found.matched() ? found.best().faqId() : null,
        null,
        withoutKnowledge ? QuestionWorkflowImpl.NO_KNOWLEDGE_NOTICE : null,
        p.reason());
  }
}
