package dev.questionflow.workflows.ticket;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

@ActivityInterface
public interface TicketActivities {

  /** Idempotent: the ticket ID is derived from the workflow ID, so a retry finds the ticket already there. */
  @ActivityMethod
  TicketRef openTicket(TicketRequest request);

  /** Records the staff reply on the ticket and closes it. Idempotent. */
  @ActivityMethod
  void closeTicket(TicketClosing closing);
}
