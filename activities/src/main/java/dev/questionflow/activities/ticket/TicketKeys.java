package dev.questionflow.activities.ticket;

import dev.questionflow.workflows.codec.SealedText.Place;

/**
 * The ticket inbox's Redis keys, all under one hash tag ({@code {tickets}}): on a Redis Cluster a
 * ticket and the status indexes are in one slot, so one script writes them together and one WAIT on
 * that slot's master covers the whole write.
 */
final class TicketKeys {

  static final String TICKET_PREFIX = "cs:{tickets}:ticket:";
  static final String STATUS_PREFIX = "cs:{tickets}:status:";

  /** SCAN MATCH pattern of every ticket (braces are not special in Redis's glob patterns). */
  static final String EVERY_TICKET = TICKET_PREFIX + "*";

  /** The names before the hash tag, moved by {@link LegacyTicketKeys}. */
  static final String LEGACY_TICKET_PREFIX = "cs:ticket:";

  static final String LEGACY_STATUS_PREFIX = "cs:tickets:";

  private TicketKeys() {}

  static String ticket(String ticketId) {
    return TICKET_PREFIX + ticketId;
  }

  static String status(Ticket.Status status) {
    return STATUS_PREFIX + status;
  }

  /** The ticket ID of a key from {@link #EVERY_TICKET}. */
  static String idOf(String ticketKey) {
    return ticketKey.substring(TICKET_PREFIX.length());
  }

  /**
   * Where a ticket's text is sealed to: the ticket's name from before the hash tag and the JSON
   * field. It names the ticket, not where Redis keeps it, so tickets sealed before the keys moved
   * still open, and a text moved to another ticket or field still does not.
   */
  static Place place(String ticketId, String field) {
    return new Place(LEGACY_TICKET_PREFIX + ticketId, field);
  }
}
