package dev.questionflow.activities.ticket;

import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.activities.resilience.Dependency;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.workflows.ticket.TicketActivities;
import dev.questionflow.workflows.ticket.TicketClosing;
import dev.questionflow.workflows.ticket.TicketRef;
import dev.questionflow.workflows.ticket.TicketRequest;
import dev.questionflow.workflows.ticket.TicketUndelivered;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.util.Optional;

/**
 * Hands a question over to people: first into the built-in inbox (so it cannot be lost), then, when
 * a helpdesk webhook is configured, to the helpdesk. Every step is idempotent by ticket ID, so
 * Temporal may retry freely.
 *
 * <p>The ticket holds the question redacted ({@link Redactor}): the inbox, the staff console and
 * the helpdesk payload never carry card numbers or ID numbers; the customer's original words stay
 * in the question's workflow input, for staff who need them.
 */
public class InboxTicketActivities implements TicketActivities {

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(InboxTicketActivities.class);

  private final TicketInbox inbox;
  private final Optional<HelpdeskWebhook> helpdesk;
  private final Clock clock;
  private final DependencyBreakers breakers;
  private final UpstreamErrors errors;
  private final Redactor redactor;

  public InboxTicketActivities(
      TicketInbox inbox, Optional<HelpdeskWebhook> helpdesk, Clock clock, Redactor redactor) {
    this(
        inbox,
        helpdesk,
        clock,
        redactor,
        DependencyBreakers.withSpecDefaults(),
        new UpstreamErrors(new SimpleMeterRegistry()));
  }

  /**
   * With the application's breakers: the helpdesk call is guarded by the HELPDESK breaker and
   * counted.
   */
  public InboxTicketActivities(
      TicketInbox inbox,
      Optional<HelpdeskWebhook> helpdesk,
      Clock clock,
      Redactor redactor,
      DependencyBreakers breakers,
      UpstreamErrors errors) {
    this.inbox = inbox;
    this.redactor = redactor;
    this.helpdesk = helpdesk;
    this.clock = clock;
    this.breakers = breakers;
    this.errors = errors;
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
                redactor.redact(request.question()),
                request.intent(),
                request.priority(),
                request.candidateFaqIds(),
                request.reason(),
                Ticket.Status.OPEN,
                clock.instant(),
                null,
                null,
                null,
                null,
                null,
                request.caller()));
    // the line support staff search for (WorkflowId and requestId are in the MDC); no message text
    log.info(
        "ticket {} opened for {} (intent {}, priority {})",
        ticketId,
        request.userId(),
        request.intent(),
        request.priority());
    return new TicketRef(ticketId, ticket.deliveredAt() != null);
  }

  @Override
  public TicketRef deliverTicket(String ticketId) {
    Ticket ticket = find(ticketId);
    if (ticket.deliveredAt() != null) {
      return new TicketRef(ticketId, true); // a retry after a delivery whose completion was lost
    }
    if (helpdesk.isEmpty()) {
      return new TicketRef(ticketId, false);
    }
    try {
      breakers.call(
          Dependency.HELPDESK,
          () -> {
            helpdesk.get().deliver(ticket);
            return null;
          });
    } catch (CallNotPermittedException e) {
      // breaker open: fail this attempt at once; the retry policy / dead-letter backoff tries again
      // later
      errors.record(Dependency.HELPDESK, UpstreamErrors.Kind.CIRCUIT_OPEN);
      throw ApplicationFailure.newFailure("helpdesk circuit is open", "CircuitOpen");
    } catch (RuntimeException e) {
      errors.record(Dependency.HELPDESK, e);
      throw e;
    }
    inbox.update(ticket.delivered(clock.instant()));
    return new TicketRef(ticketId, true);
  }

  @Override
  public void markTicketUndelivered(TicketUndelivered undelivered) {
    Ticket ticket = find(undelivered.ticketId());
    if (ticket.deliveredAt() == null) {
      inbox.update(ticket.undelivered(undelivered.reason()));
    }
  }

  @Override
  public void closeTicket(TicketClosing closing) {
    Ticket ticket = find(closing.ticketId());
    if (ticket.status() == Ticket.Status.ANSWERED) {
      return;
    }
    inbox.update(ticket.answered(closing.agent(), closing.replyText(), clock.instant()));
  }

  private Ticket find(String ticketId) {
    return inbox
        .find(ticketId)
        .orElseThrow(
            () ->
                ApplicationFailure.newNonRetryableFailure(
                    "ticket " + ticketId + " is not in the inbox", "UnknownTicket"));
  }
}
