package dev.questionflow.workflows.callback;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One per question and {@link CallbackEvent}: delivers the callback apart from the question, which
 * only waits for this workflow to start (so a slow or failing receiver never keeps a question
 * open). It runs on the unversioned tickets queue and is abandoned by its parent. After the
 * delivery activity's last retry it is a dead letter: {@code Stage="DEAD_LETTER"}, counted and
 * logged, and it waits for {@link #redrive()} until its hold ends (then it closes undelivered).
 */
@WorkflowInterface
public interface AnswerCallbackWorkflow {

  @WorkflowMethod(name = "AnswerCallback")
  CallbackStatus deliver(CallbackMessage message);

  /** Try the delivery again now (a dead letter's only way on). */
  @SignalMethod
  void redrive();

  @QueryMethod
  CallbackStatus status();

  /** Deterministic, so a question sends each event's callback at most once. */
  static String workflowIdFor(String questionWorkflowId, CallbackEvent event) {
    return questionWorkflowId + "-callback-" + event.suffix();
  }
}
