package dev.questionflow.workflows.question;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** One customer question, from acceptance to an answer (or a ticket answered by a person). */
@WorkflowInterface
public interface QuestionWorkflow {

  String TASK_QUEUE = "questions";

  /**
   * Memo key of the answer a handed-over question gives while it waits for a person (hours): the
   * API reads it with the workflow's description instead of a query, which would cost the worker a
   * workflow task (often a full replay) per poll. A finished question's answer is its result.
   */
  String ANSWER_MEMO = "answer";

  @WorkflowMethod
  Answer answer(Question question);

  /**
   * Where the question is. While it waits for its model lane, {@code queuePosition} and {@code
   * etaSeconds} are projected to {@code asOfEpochMillis} (the caller's clock) from the last queue
   * snapshot the workflow took, at the lane's service rate; null = as of that snapshot. A query, so
   * it never adds history events.
   */
  @QueryMethod
  QuestionStatus status(Long asOfEpochMillis);

  /** A person answered the ticket this question was handed over to. */
  @SignalMethod
  void staffReply(StaffReply reply);

  /**
   * The question ahead of this one in its session has finished (sent by that question's session
   * activity).
   */
  @SignalMethod
  void sessionTurnReady(String finishedWorkflowId);

  /**
   * The caller sent the question again while it had no answer: its customer is waiting now. A
   * question waiting for a model with an FAQ match gets that answer at once, and the model's answer
   * follows it as revision 2 (as an upgrade does).
   */
  @SignalMethod
  void askedAgain();
}
