package dev.questionflow.workflows.question;

import dev.questionflow.workflows.callback.AnswerCallbackWorkflow;
import dev.questionflow.workflows.callback.CallbackEvent;
import dev.questionflow.workflows.callback.CallbackMessage;
import dev.questionflow.workflows.callback.CallbackTarget;
import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * A question's answer callbacks: each event starts an {@link AnswerCallbackWorkflow} child that
 * outlives the question (abandoned) on the unversioned tickets queue, and the question waits only
 * for its start (a child whose parent closes before it started would never start). Exists only for
 * questions accepted with a callback target, so histories without one (every recorded one) see no
 * new command: no version marker is needed.
 */
final class Callbacks {

  private static final Logger log = Workflow.getLogger(Callbacks.class);

  private final String caller;
  private final CallbackTarget target;
  private final Supplier<String> intent;

  private Callbacks(String caller, CallbackTarget target, Supplier<String> intent) {
    this.caller = caller;
    this.target = target;
    this.intent = intent;
  }

  /** Null when the question has no callback target: nothing is sent. */
  static Callbacks of(String caller, CallbackTarget target, Supplier<String> intent) {
    return target == null || caller == null ? null : new Callbacks(caller, target, intent);
  }

  CallbackTarget target() {
    return target;
  }

  String caller() {
    return caller;
  }

  /** The event an answer just given is, by the stage and the answer. */
  static CallbackEvent eventOf(Stage stage, Answer answer) {
    if (stage == Stage.TICKETED) {
      return CallbackEvent.TICKETED;
    }
    if (answer.level() == AnswerLevel.HUMAN) {
      return CallbackEvent.ANSWERED_BY_PERSON;
    }
    return answer.revision() > 1 ? CallbackEvent.UPGRADED : CallbackEvent.ANSWERED;
  }

  /**
   * Sends {@code event} with the status as the status endpoint shows it now (no queue figures or
   * deadline: the question is answered or handed over).
   */
  void send(CallbackEvent event, Stage stage, Answer answer, boolean upgrading) {
    String workflowId = Workflow.getInfo().getWorkflowId();
    QuestionStatus status =
        new QuestionStatus(workflowId, stage, null, null, intent.get(), answer, null, upgrading);
    String queue = Workflow.getInfo().getTaskQueue();
    AnswerCallbackWorkflow child =
        Workflow.newChildWorkflowStub(
            AnswerCallbackWorkflow.class,
            ChildWorkflowOptions.newBuilder()
                .setWorkflowId(AnswerCallbackWorkflow.workflowIdFor(workflowId, event))
                // the unversioned queue beside the question's (a TicketReplyWorkflow is on it)
                .setTaskQueue(
                    queue.endsWith(TicketReplyWorkflow.TASK_QUEUE_SUFFIX)
                        ? queue
                        : queue + TicketReplyWorkflow.TASK_QUEUE_SUFFIX)
                // retries and a dead letter may outlast the question, which must close on time
                .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON)
                .setStaticSummary(event.type() + " callback of " + workflowId + " to " + caller)
                .build());
    CallbackMessage message =
        new CallbackMessage(
            "msg_" + workflowId + "_" + event.suffix(),
            caller,
            target,
            event.type(),
            Workflow.currentTimeMillis(),
            status);
    Async.function(child::deliver, message);
    try {
      Workflow.getWorkflowExecution(child).get();
    } catch (ChildWorkflowFailure e) {
      // already started for this question and event (a reset re-ran it): that one carries on
      log.warn("{} callback not started again: {}", event.type(), e.getMessage());
    }
  }
}
