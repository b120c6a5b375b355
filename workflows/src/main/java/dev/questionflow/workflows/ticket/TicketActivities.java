package dev.questionflow.workflows.ticket;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Hand-over to people. Opening a ticket (our own inbox) and delivering it (the external helpdesk)
 * are separate steps so a helpdesk outage can be compensated without losing the ticket: see the
 * question workflow's saga and {@link
 * dev.questionflow.workflows.deadletter.DeadLetterTicketWorkflow}.
 */
@ActivityInterface
public interface TicketActivities {

  /**
   * Idempotent: the ticket ID is derived from the workflow ID, so a retry finds the ticket already
   * there.
   */
  @ActivityMethod
  TicketRef openTicket(TicketRequest request);

  /**
   * Delivers the ticket to the helpdesk with the ticket ID as idempotency key; returns whether a
   * helpdesk took it (false when none is configured). Throws when the helpdesk fails, so the retry
   * policy applies. Idempotent: an already delivered ticket is not sent again.
   */
  @ActivityMethod
  TicketRef deliverTicket(String ticketId);

  /**
   * Compensation: records on the ticket that the helpdesk did not take it (it becomes a dead
   * letter).
   */
  @ActivityMethod
  void markTicketUndelivered(TicketUndelivered undelivered);

  /** Records the staff reply on the ticket and closes it. Idempotent. */
  @ActivityMethod
  void closeTicket(TicketClosing closing);
}
