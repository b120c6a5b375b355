package dev.questionflow.workflows.question;

import dev.questionflow.workflows.deadletter.DeadLetter;
import dev.questionflow.workflows.deadletter.DeadLetterTicketWorkflow;
import dev.questionflow.workflows.lane.Priorities;
import dev.questionflow.workflows.outcome.QuestionRecords;
import dev.questionflow.workflows.retrieval.FaqHit;
import dev.questionflow.workflows.retrieval.RetrievalResult;
import dev.questionflow.workflows.ticket.TicketActivities;
import dev.questionflow.workflows.ticket.TicketClosing;
import dev.questionflow.workflows.ticket.TicketRequest;
import dev.questionflow.workflows.ticket.TicketUndelivered;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.common.Priority;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.ContinueAsNewOptions;
import io.temporal.workflow.Saga;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The last rung: a ticket for a person. It goes to our inbox, then to the helpdesk (a saga: if the
 * helpdesk refuses, the inbox ticket is marked undelivered and a dead-letter workflow keeps
 * redelivering), the customer gets the hand-over answer at once, and a staff reply within the
 * window becomes the answer.
 */
final class Handover {

  private static final Logger log = Workflow.getLogger(Handover.class);

  private final TicketActivities tickets = Workflow.newActivityStub(TicketActivities.class);
  private String ticketId;

  /**
   * The ticket steps' priority: the question's as it is at the handover (a complaint's raised one),
   * not the workflow's from its start.
   */
  private Priority stepPriority = Priorities.temporal(Priorities.DEFAULT);

  private int questionPriority = Priorities.DEFAULT;

  private StaffReply staffReply;

  /**
   * The signal: only the first reply to this question's own ticket counts; later ones are ignored,
   * not errors.
   */
  void staffReply(StaffReply reply) {
    if (staffReply == null && ticketId != null && ticketId.equals(reply.ticketId())) {
      staffReply = reply;
    }
  }

  /**
   * @param intent the classified intent (null when intent failed)
   * @param priority the question's priority, raised for complaints
   */
  Answer handOver(
      Question question,
      RetrievalResult found,
      QuestionPolicy policy,
      Problems problems,
      String intent,
      int priority,
      Outcome outcome) {
    String workflowId = Workflow.getInfo().getWorkflowId();
    stepPriority = Priorities.temporal(priority);
    questionPriority = priority;
    List<String> candidates = found.hits().stream().map(FaqHit::faqId).toList();
    ticketId =
        summarized("hand over to a person (intent " + intent + ", priority " + priority + ")")
            .openTicket(
                new TicketRequest(
                    workflowId,
                    question.sessionId(),
                    question.userId(),
                    question.text(),
                    intent,
                    priority,
                    candidates,
                    problems.reason(),
                    question.caller()))
            .ticketId();
    Progress.details("handing ticket " + ticketId + " to the helpdesk");
    deliverOrDeadLetter(workflowId, policy);

    Answer handedOver =
        new Answer(
            policy.promisedReplyText(),
            AnswerLevel.TICKET,
            null,
            ticketId,
            "Handed over to a person.",
            problems.reason());
    outcome.finish(handedOver, Stage.TICKETED, problems);
    if (Workflow.getVersion(TICKET_WAIT_APART, Workflow.DEFAULT_VERSION, 1) == 1) {
      waitApart(handedOver, policy, intent, outcome);
    }
    Progress.details(
        "ticket "
            + ticketId
            + " open, waiting for a staff reply (at most "
            + Duration.ofSeconds(policy.humanReplyWindowSeconds()).toHours()
            + " h)");

    if (!Workflow.await(
        Duration.ofSeconds(policy.humanReplyWindowSeconds()), () -> staffReply != null)) {
      return handedOver;
    }
    summarized("record " + staffReply.agent() + "'s reply on ticket " + ticketId)
        .closeTicket(new TicketClosing(ticketId, staffReply.agent(), staffReply.text()));
    return outcome.finish(
        new Answer(staffReply.text(), AnswerLevel.HUMAN, null, ticketId, null, null),
        Stage.ANSWERED,
        new Problems());
  }

  /**
   * Version 1: the wait for a person goes on in a {@link TicketReplyWorkflow} on its own task
   * queue, this workflow continuing as it under the same ID. A question is pinned to the build that
   * started it; the wait (days) is not, so no build runs for a week for it.
   */
  static final String TICKET_WAIT_APART = "ticket-wait-apart";

  /** Continues as the wait for a person; never returns. */
  private void waitApart(Answer handedOver, QuestionPolicy policy, String intent, Outcome outcome) {
    TicketWait wait =
        new TicketWait(
            ticketId,
            handedOver,
            Workflow.currentTimeMillis() + policy.humanReplyWindowSeconds() * 1000,
            questionPriority,
            outcome.startedAt(),
            intent,
            staffReply,
            QuestionRecords.current().finished(),
            outcome.callbacks() == null ? null : outcome.callbacks().caller(),
            outcome.callbacks() == null ? null : outcome.callbacks().target());
    Workflow.continueAsNew(
        TicketReplyWorkflow.class.getSimpleName(),
        ContinueAsNewOptions.newBuilder()
            // its own queue, never versioned: any build's worker takes the wait on
            .setTaskQueue(Workflow.getInfo().getTaskQueue() + TicketReplyWorkflow.TASK_QUEUE_SUFFIX)
            // the memo is not carried over: status reads take the hand-over answer from it
            .setMemo(Map.of(QuestionWorkflow.ANSWER_MEMO, handedOver))
            .build(),
        wait);
  }

  /**
   * Saga: the ticket is in our inbox (step 1); delivering it to the helpdesk (step 2) may fail
   * after its retries. Then the compensation marks the inbox ticket undelivered and a dead-letter
   * workflow takes over redelivery, so the ticket is never lost and the customer is not kept
   * waiting for the helpdesk.
   */
  private void deliverOrDeadLetter(String workflowId, QuestionPolicy policy) {
    String[] deliveryError = new String[1];
    Saga saga = new Saga(new Saga.Options.Builder().build());
    saga.addCompensation(
        () -> tickets.markTicketUndelivered(new TicketUndelivered(ticketId, deliveryError[0])));
    try {
      summarized("deliver ticket " + ticketId + " to the helpdesk").deliverTicket(ticketId);
    } catch (ActivityFailure e) {
      deliveryError[0] = Problems.failureMessage(e);
      log.error("helpdesk did not take ticket {}: {}; compensating", ticketId, deliveryError[0]);
      saga.compensate();
      startDeadLetter(workflowId, deliveryError[0], policy);
    }
  }

  private void startDeadLetter(String workflowId, String error, QuestionPolicy policy) {
    DeadLetterTicketWorkflow deadLetter =
        Workflow.newChildWorkflowStub(
            DeadLetterTicketWorkflow.class,
            ChildWorkflowOptions.newBuilder()
                .setWorkflowId(DeadLetterTicketWorkflow.workflowIdFor(ticketId))
                // it must outlive this question workflow (which may end long before the helpdesk is
                // back)
                .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON)
                .build());
    Async.function(
        deadLetter::redeliver, new DeadLetter(ticketId, workflowId, error, 0, policy.deadLetter()));
    try {
      Workflow.getWorkflowExecution(deadLetter).get();
    } catch (ChildWorkflowFailure e) {
      // already started for this ticket (e.g. this question was reset and re-run): that one carries
      // on
      log.warn("dead-letter workflow for ticket {} not started: {}", ticketId, e.getMessage());
    }
  }

  /**
   * A stub whose next call carries {@code summary} (the Web UI's "Events with Metadata"); timeouts
   * and retries still come from the per-type options of application.yml, which an explicit stub is
   * merged with.
   */
  private TicketActivities summarized(String summary) {
    return Workflow.newActivityStub(
        TicketActivities.class,
        ActivityOptions.newBuilder().setSummary(summary).setPriority(stepPriority).build());
  }
}
