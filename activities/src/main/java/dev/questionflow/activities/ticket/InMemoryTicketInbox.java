package dev.questionflow.activities.ticket;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The zero-install default when REDIS_URL is unset. Not durable: tickets are gone when the process
 * stops.
 */
public class InMemoryTicketInbox implements TicketInbox {

  private final ConcurrentMap<String, Ticket> tickets = new ConcurrentHashMap<>();

  @Override
  public Ticket createIfAbsent(Ticket ticket) {
    return tickets.computeIfAbsent(ticket.ticketId(), id -> ticket);
  }

  @Override
  public Optional<Ticket> find(String ticketId) {
    return Optional.ofNullable(tickets.get(ticketId));
  }

  @Override
  public void update(Ticket ticket) {
    tickets.put(ticket.ticketId(), ticket);
  }

  @Override
  public List<Ticket> list(Ticket.Status status, int limit) {
    return tickets.values().stream()
        .filter(t -> t.status() == status)
        .sorted(Comparator.comparing(Ticket::createdAt))
        .limit(limit)
        .toList();
  }

  @Override
  public String kind() {
    return "in-memory";
  }
}
