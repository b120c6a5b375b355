package dev.questionflow.workflows.outcome;

import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowLocal;
import java.util.List;

/**
 * What a question's workflow knows for its {@link QuestionRecord}, kept in a {@link WorkflowLocal}:
 * setting it adds no command or event, so histories replay unchanged. The worker's outcome
 * interceptor reads {@link #finished()} after the workflow method returned (workflow code cannot do
 * I/O).
 */
public final class QuestionRecords {

  private static final WorkflowLocal<QuestionRecords> CURRENT =
      WorkflowLocal.withCachedInitial(QuestionRecords::new);

  private String caller;
  private String tier;
  private String intent;
  private String model;
  private Integer promptTokens;
  private Integer completionTokens;
  private Double cost;
  private Long firstAnswerMillis;
  private List<String> reasons = List.of();
  private QuestionRecord finished;

  private QuestionRecords() {}

  /** This workflow's facts (call from workflow code only). */
  public static QuestionRecords current() {
    return CURRENT.get();
  }

  public void asked(String caller, String tier) {
    this.caller = caller;
    this.tier = tier;
  }

  public void intent(String intent) {
    this.intent = intent;
  }

  /** A model answered: its tokens and their cost add to the question's. */
  public void answered(String model, Integer prompt, Integer completion, Double answerCost) {
    this.model = model;
    promptTokens = sum(promptTokens, prompt);
    completionTokens = sum(completionTokens, completion);
    if (answerCost != null) {
      cost = cost == null ? answerCost : cost + answerCost;
    }
  }

  /** The facts of an earlier run of this question (a hand-over), null: none recorded. */
  public void resume(QuestionRecord earlier) {
    if (earlier == null) {
      return;
    }
    caller = earlier.caller();
    tier = earlier.tier();
    intent = earlier.intent();
    model = earlier.model();
    promptTokens = earlier.promptTokens();
    completionTokens = earlier.completionTokens();
    cost = earlier.cost();
    firstAnswerMillis = earlier.firstAnswerMillis();
    reasons = earlier.reasons();
    finished = earlier;
  }

  /**
   * The question ended (for now) with this answer; the last call before the workflow returns is the
   * record written. Reasons of an earlier answer stay when the later one has none (a person's reply
   * after a hand-over).
   */
  public void finish(
      String stage, String level, String faqId, List<String> why, long millisSinceAccepted) {
    if (firstAnswerMillis == null) {
      firstAnswerMillis = millisSinceAccepted;
    }
    if (why != null && !why.isEmpty()) {
      reasons = List.copyOf(why);
    }
    finished =
        new QuestionRecord(
            Workflow.getInfo().getWorkflowId(),
            caller,
            tier,
            intent,
            stage,
            level,
            faqId,
            reasons,
            firstAnswerMillis,
            model,
            promptTokens,
            completionTokens,
            cost,
            Workflow.currentTimeMillis());
  }

  /** The record of the finished question, or null when it did not finish yet. */
  public QuestionRecord finished() {
    return finished;
  }

  private static Integer sum(Integer a, Integer b) {
    if (b == null) {
      return a;
    }
    return a == null ? b : a + b;
  }
}
