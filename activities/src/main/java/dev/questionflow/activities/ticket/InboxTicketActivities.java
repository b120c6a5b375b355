package dev.questionflow.activities.ticket;

import dev.questionflow.workflows.ticket.TicketActivities;
import dev.questionflow.workflows.ticket.TicketClosing;
import dev.questionflow.workflows.ticket.TicketRef;
import dev.questionflow.workflows.ticket.TicketRequest;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.util.Optional;

/**
 * Hands a question over to people: first into the built-in inbox (so it cannot be lost), then, when a helpdesk
 * webhook is configured, to the helpdesk. Both steps are idempotent, so Temporal may retry freely.
 */
public class InboxTicketActivities implements TicketActivities {

  private final TicketInbox inbox;
  private final Optional<HelpdeskWebhook> helpdesk;
  private final Clock clock;

  public InboxTicketActivities(TicketInbox inbox, Optional<HelpdeskWebhook> helpdesk, Clock clock) {
    this.inbox = inbox;
    this.helpdesk = helpdesk;
    this.clock = clock;
  }

  @Override
  public TicketRef openTicket(TicketRequest request) {
    String ticketId = TicketRef.idFor(request.workflowId());
    Ticket ticket =
        inbox.createIfAbsent(
            new Ticket(
                ticketId,
                request.workflowId(),
                request.sessionId(),
                request.userId(),
                request.question(),
                request.intent(),
                request.priority(),
                request.candidateFaqIds(),
                request.reason(),
                Ticket.Status.OPEN,
                clock.instant(),
                null,
                null,
                null,
                null));
    if (helpdesk.isPresent() && ticket.deliveredAt() == null) {
      helpdesk.get().deliver(ticket);
      inbox.update(ticket.delivered(clock.instant()));
      return new TicketRef(ticketId, true);
    }
    return new TicketRef(ticketId, ticket.deliveredAt() != null);
  }

  @Override
  public void closeTicket(TicketClosing closing) {
    Ticket ticket =
        inbox
            .find(closing.ticketId())
            .orElseThrow(
                () ->
                    ApplicationFailure.newNonRetryableFailure(
                        "ticket " + closing.ticketId() + " is not in the inbox", "UnknownTicket"));
    if (ticket.status() == Ticket.Status.ANSWERED) {
      return;
    }
    inbox.update(ticket.answered(closing.agent(), closing.replyText(), clock.instant()));
  }
}
