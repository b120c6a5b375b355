package dev.questionflow.activities.ticket;

import dev.questionflow.activities.redis.Reseal;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves tickets kept under the names from before the hash tag ({@code cs:ticket:<id>}, {@code
 * cs:tickets:<status>}) to {@link TicketKeys}'s, once per process before the inbox's first use
 * (tickets are durable data: none may be left behind where the inbox no longer looks). Idempotent:
 * a key is renamed (keeping its TTL) only while the new name is free, an index is merged into the
 * new one; a ticket found under both names with different values is left as it is, with a WARN.
 *
 * <p>A single Redis or Sentinel only: a cluster has no tickets from before the tag (it could not
 * have run the old scripts), and RENAME cannot cross slots.
 */
public final class LegacyTicketKeys {

  private static final Logger log = LoggerFactory.getLogger(LegacyTicketKeys.class);

  /** KEYS: old, new. 1 = moved, 2 = the same ticket was there already, -1 = a different one. */
  private static final String MOVE_TICKET =
      """
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      if redis.call('EXISTS', KEYS[2]) == 0 then
        redis.call('RENAME', KEYS[1], KEYS[2])
        return 1
      end
      if redis.call('GET', KEYS[1]) == redis.call('GET', KEYS[2]) then
        redis.call('DEL', KEYS[1])
        return 2
      end
      return -1
      """;

  /** KEYS: old index, new index. Returns the members moved. */
  private static final String MOVE_INDEX =
      """
      local n = redis.call('ZCARD', KEYS[1])
      if n == 0 then return 0 end
      redis.call('ZUNIONSTORE', KEYS[2], 2, KEYS[2], KEYS[1], 'AGGREGATE', 'MAX')
      redis.call('DEL', KEYS[1])
      return n
      """;

  /** What one run moved. */
  public record Moved(long tickets, long indexEntries, List<String> conflicts) {}

  private volatile boolean done;

  private LegacyTicketKeys(boolean done) {
    this.done = done;
  }

  /** Moves legacy keys before the first use. */
  public static LegacyTicketKeys toMove() {
    return new LegacyTicketKeys(false);
  }

  /** Nothing to move (a cluster; tests of the inbox on a Redis shared with other tests). */
  public static LegacyTicketKeys none() {
    return new LegacyTicketKeys(true);
  }

  /** Moves them unless that was done; throws (the caller's operation fails) if Redis fails. */
  public void ensureMoved(RedisClusterCommands<String, String> redis) {
    if (done) {
      return;
    }
    synchronized (this) {
      if (!done) {
        Moved moved = move(redis);
        done = true;
        if (moved.tickets() > 0 || moved.indexEntries() > 0 || !moved.conflicts().isEmpty()) {
          log.info(
              "tickets moved to their hash-tagged keys: {} tickets, {} index entries",
              moved.tickets(),
              moved.indexEntries());
        }
        moved
            .conflicts()
            .forEach(
                id ->
                    log.warn(
                        "ticket {} is under its old key and its new one with different values: the new"
                            + " one is used; compare {} with {} and delete the old key by hand",
                        id,
                        TicketKeys.LEGACY_TICKET_PREFIX + id,
                        TicketKeys.ticket(id)));
      }
    }
  }

  /** One pass over the keyspace; safe to repeat. */
  public static Moved move(RedisClusterCommands<String, String> redis) {
    long[] tickets = {0};
    List<String> conflicts = new ArrayList<>();
    Reseal.scan(
        redis,
        TicketKeys.LEGACY_TICKET_PREFIX + "*",
        key -> {
          String id = key.substring(TicketKeys.LEGACY_TICKET_PREFIX.length());
          Long result =
              redis.eval(
                  MOVE_TICKET, ScriptOutputType.INTEGER, new String[] {key, TicketKeys.ticket(id)});
          if (result != null && result == 1) {
            tickets[0]++;
          } else if (result != null && result == -1) {
            conflicts.add(id);
          }
        });
    long entries = 0;
    for (Ticket.Status status : Ticket.Status.values()) {
      Long n =
          redis.eval(
              MOVE_INDEX,
              ScriptOutputType.INTEGER,
              new String[] {TicketKeys.LEGACY_STATUS_PREFIX + status, TicketKeys.status(status)});
      entries += n == null ? 0 : n;
    }
    return new Moved(tickets[0], entries, List.copyOf(conflicts));
  }
}
