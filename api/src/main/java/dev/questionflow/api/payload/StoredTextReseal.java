package dev.questionflow.api.payload;

import dev.questionflow.activities.redis.Reseal;
import dev.questionflow.api.web.ConflictException;
import dev.questionflow.workflows.codec.SealedText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites the customer text stored in Redis (tickets, session history, FAQ changes) in the form
 * bound to its place ({@code enc2} under the primary key; see {@link SealedText}), so that plain
 * and {@code enc1} values can then be refused ({@code PAYLOAD_SEALED_ONLY}) and retired keys
 * removed. Safe to run while the app serves and to run again: every write replaces only the value
 * it read.
 */
public final class StoredTextReseal {

  private static final Logger log = LoggerFactory.getLogger(StoredTextReseal.class);

  /**
   * @param stores per store, what was read, rewritten and left as it was
   * @param total the sum
   * @param sealedOnly whether PAYLOAD_SEALED_ONLY is on already
   * @param keyId the key everything was sealed with
   */
  public record Report(
      Map<String, Reseal.Count> stores, Reseal.Count total, boolean sealedOnly, String keyId) {}

  private final SealedText sealed;
  private final String keyId;
  private final List<Reseal.Resealable> stores;

  /**
   * @param keyId the primary key's ID (null without keys)
   * @param stores the Redis stores (none without Redis)
   */
  public StoredTextReseal(SealedText sealed, String keyId, List<Reseal.Resealable> stores) {
    this.sealed = sealed;
    this.keyId = keyId;
    this.stores = List.copyOf(stores);
  }

  /**
   * @throws ConflictException without Redis (nothing stored) or without PAYLOAD_KEYS (nothing to
   *     seal with)
   */
  public Report run() {
    if (stores.isEmpty()) {
      throw new ConflictException("REDIS_URL is not set: no customer text is stored in Redis");
    }
    if (!sealed.encrypting()) {
      throw new ConflictException(
          "PAYLOAD_KEYS is not set: stored text cannot be sealed without keys");
    }
    Map<String, Reseal.Count> counts = new LinkedHashMap<>();
    Reseal.Count total = Reseal.Count.NONE;
    for (Reseal.Resealable store : stores) {
      Reseal.Count count = store.reseal();
      counts.put(store.name(), count);
      total = total.plus(count);
    }
    log.info(
        "reseal under key '{}': {} stored entries read, {} rewritten, {} left as they were",
        keyId,
        total.examined(),
        total.resealed(),
        total.unreadable());
    return new Report(counts, total, sealed.sealedOnly(), keyId);
  }
}
