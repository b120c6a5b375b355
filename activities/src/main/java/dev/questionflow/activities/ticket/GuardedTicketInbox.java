package dev.questionflow.activities.ticket;

import dev.questionflow.activities.resilience.Dependency;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The inbox behind the {@link Dependency#REDIS} circuit breaker: while Redis is down, calls fail at
 * once instead of each waiting for the client's timeout (ticket activities are retried by Temporal
 * until Redis is back; the API answers 503). Failures are counted in {@code
 * cs_upstream_errors_total{dependency="redis"}}.
 */
public final class GuardedTicketInbox implements TicketInbox {

  private final TicketInbox inbox;
  private final DependencyBreakers breakers;
  private final UpstreamErrors errors;

  public GuardedTicketInbox(TicketInbox inbox, DependencyBreakers breakers, UpstreamErrors errors) {
    this.inbox = inbox;
    this.breakers = breakers;
    this.errors = errors;
  }

  @Override
  public Ticket createIfAbsent(Ticket ticket) {
    return guarded(() -> inbox.createIfAbsent(ticket));
  }

  @Override
  public Optional<Ticket> find(String ticketId) {
    return guarded(() -> inbox.find(ticketId));
  }

  @Override
  public void update(Ticket ticket) {
    guarded(
        () -> {
          inbox.update(ticket);
          return null;
        });
  }

  @Override
  public List<Ticket> list(Ticket.Status status, int limit) {
    return guarded(() -> inbox.list(status, limit));
  }

  @Override
  public String kind() {
    return inbox.kind();
  }

  private <T> T guarded(Supplier<T> call) {
    try {
      return breakers.call(Dependency.REDIS, call);
    } catch (CallNotPermittedException e) {
      errors.record(Dependency.REDIS, UpstreamErrors.Kind.CIRCUIT_OPEN);
      throw new IllegalStateException("the ticket inbox (" + inbox.kind() + ") circuit is open", e);
    } catch (RuntimeException e) {
      errors.record(Dependency.REDIS, e);
      throw e;
    }
  }
}
