package dev.questionflow.workflows.question;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** One customer question, from acceptance to an answer (or a ticket answered by a person). */
@WorkflowInterface
public interface QuestionWorkflow {

  String TASK_QUEUE = "questions";

  @WorkflowMethod
  Answer answer(Question question);

  @QueryMethod
  QuestionStatus status();

  /** A person answered the ticket this question was handed over to. */
  @SignalMethod
  void staffReply(StaffReply reply);
}
