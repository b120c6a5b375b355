package dev.questionflow.activities.ticket;

import java.util.List;
import java.util.Optional;

/** Where handed-over questions wait for a person. Every write is idempotent by ticket ID. */
public interface TicketInbox {

  /** Stores the ticket unless one with its ID exists; returns the stored one either way. */
  Ticket createIfAbsent(Ticket ticket);

  Optional<Ticket> find(String ticketId);

  /** Replaces a stored ticket (delivery mark, answer). */
  void update(Ticket ticket);

  /** Tickets with the given status, oldest first. */
  List<Ticket> list(Ticket.Status status, int limit);

  /** A short name for logs and health, e.g. "redis" or "in-memory". */
  String kind();
}
