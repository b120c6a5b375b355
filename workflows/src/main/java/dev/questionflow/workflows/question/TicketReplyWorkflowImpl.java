package dev.questionflow.workflows.question;

import dev.questionflow.workflows.lane.Priorities;
import dev.questionflow.workflows.outcome.QuestionRecords;
import dev.questionflow.workflows.status.StatusBeacon;
import dev.questionflow.workflows.ticket.TicketActivities;
import dev.questionflow.workflows.ticket.TicketClosing;
import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Waits for a person's reply to the ticket until the reply window ends; a reply closes the ticket
 * and becomes the answer. The session turn was recorded at the hand-over, so it is not recorded
 * again.
 */
public class TicketReplyWorkflowImpl implements TicketReplyWorkflow {

  private final Progress progress = new Progress();

  /** Replies signalled before the wait was read (a signal may be handled first). */
  private final List<StaffReply> signalled = new ArrayList<>();

  private TicketWait wait;
  private StaffReply reply;
  private Outcome outcome;

  /**
   * Runs on its own task queue, never versioned ({@link TicketReplyWorkflow#TASK_QUEUE_SUFFIX}): a
   * wait of days keeps no build running, and any build's worker takes it on; its changes are
   * guarded by getVersion and the golden history {@code ticket-reply}.
   */
  @Override
  public Answer awaitReply(TicketWait wait) {
    this.wait = wait;
    progress.set(Stage.TICKETED);
    // what the worker publishes at each visible change (workflow-local: no command)
    StatusBeacon.follow(() -> status(null));
    QuestionRecords.current().resume(wait.known()); // the question run's record, finished here
    outcome =
        Outcome.afterHandover(progress, wait.questionStartedAtMillis(), wait.handedOver())
            .withCallbacks(Callbacks.of(wait.caller(), wait.callback(), wait::intent));
    accept(wait.replied());
    signalled.forEach(this::accept);
    Progress.details("ticket " + wait.ticketId() + " open, waiting for a staff reply");
    long left = Math.max(0, wait.replyByEpochMillis() - Workflow.currentTimeMillis());
    if (!Workflow.await(Duration.ofMillis(left), () -> reply != null)) {
      return wait.handedOver();
    }
    Workflow.newActivityStub(
            TicketActivities.class,
            ActivityOptions.newBuilder()
                .setSummary("record " + reply.agent() + "'s reply on ticket " + wait.ticketId())
                .setPriority(Priorities.temporal(wait.priority()))
                .build())
        .closeTicket(new TicketClosing(wait.ticketId(), reply.agent(), reply.text()));
    return outcome.finish(
        new Answer(reply.text(), AnswerLevel.HUMAN, null, wait.ticketId(), null, null),
        Stage.ANSWERED,
        new Problems());
  }

  /** Only the first reply to this question's own ticket counts; later ones are ignored. */
  private void accept(StaffReply candidate) {
    if (candidate != null && reply == null && wait.ticketId().equals(candidate.ticketId())) {
      reply = candidate;
    }
  }

  @Override
  public void staffReply(StaffReply candidate) {
    if (wait == null) {
      signalled.add(candidate);
    } else {
      accept(candidate);
    }
  }

  @Override
  public void askedAgain() {
    // the hand-over answer is the customer's already
  }

  @Override
  public void sessionTurnReady(String finishedWorkflowId) {
    // this question's turn is over: nothing waits for it here
  }

  @Override
  public QuestionStatus status(Long asOfEpochMillis) {
    return new QuestionStatus(
        Workflow.getInfo().getWorkflowId(),
        progress.stage(),
        null,
        null,
        wait == null ? null : wait.intent(),
        outcome == null ? null : outcome.answer(),
        null,
        false);
  }
}
