package dev.questionflow.activities.outcome;

import dev.questionflow.workflows.outcome.QuestionRecord;
import dev.questionflow.workflows.outcome.QuestionRecords;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.workflow.Workflow;
import java.util.function.Consumer;

/**
 * Hands a finished question's {@link QuestionRecord} to the outcome writer when its workflow method
 * returns. An interceptor rather than an activity: the record costs the history no event, and old
 * histories replay unchanged. What it does not guarantee: a crash between the workflow's completion
 * and the write loses that record; a retried final workflow task hands it over again (the stream
 * dedupes per workflow ID). A run that continues as new (a hand-over) throws, so writes nothing:
 * its continuation writes the record when the question ends.
 */
public final class OutcomeInterceptor extends WorkerInterceptorBase {

  private final Consumer<QuestionRecord> writer;

  /**
   * @param writer must not block (it runs on the workflow thread)
   */
  public OutcomeInterceptor(Consumer<QuestionRecord> writer) {
    this.writer = writer;
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public WorkflowOutput execute(WorkflowInput input) {
        WorkflowOutput output = super.execute(input);
        QuestionRecord finished = QuestionRecords.current().finished();
        if (finished != null && !Workflow.isReplaying()) {
          writer.accept(finished);
        }
        return output;
      }
    };
  }
}
