package dev.questionflow.api.question;

import dev.questionflow.api.config.CsProperties;
import dev.questionflow.api.ratelimit.AccessLimitExceededException;
import dev.questionflow.api.ratelimit.AccessLimiter;
import dev.questionflow.api.ratelimit.AddressBlock;
import dev.questionflow.api.security.Requester;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The caps on open event streams of one instance: its total, the web visitors' together, per owner
 * and per web visitor's address (each stream holds a connection).
 */
final class StreamCaps {

  private static final String TOTAL = "total";
  private static final String VISITORS = "visitors";

  private final CsProperties.Api limits;

  /** Open streams by cap key. */
  private final ConcurrentHashMap<String, Integer> open = new ConcurrentHashMap<>();

  StreamCaps(CsProperties.Api limits) {
    this.limits = limits;
  }

  /**
   * Counts a new stream against the instance's cap, its owner's, and for web visitors their share
   * of the instance (half: anyone may mint visitors, so they must not be able to take every place
   * from back ends and staff) and their address's (an IPv6 client by its /64, which one subscriber
   * usually holds whole), or refuses it with 429 (Retry-After: a few polls' worth of waiting).
   * Returns what gives the places back.
   */
  Runnable reserve(Requester requester, String clientAddress) {
    boolean visitor = requester.kind() == Requester.Kind.WEB_VISITOR;
    Map<String, Integer> caps = new LinkedHashMap<>();
    caps.put(TOTAL, limits.sseMaxTotal());
    if (visitor) {
      caps.put(VISITORS, Math.max(1, limits.sseMaxTotal() / 2));
    }
    caps.put(
        "owner:" + requester.limitKey(),
        visitor ? limits.sseMaxPerVisitor() : limits.sseMaxPerCaller());
    if (visitor && clientAddress != null) {
      caps.put("address:" + AddressBlock.of(clientAddress), limits.sseMaxPerAddress());
    }
    List<String> taken = new ArrayList<>();
    Runnable release =
        () -> taken.forEach(key -> open.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1));
    for (Map.Entry<String, Integer> cap : caps.entrySet()) {
      if (!tryTake(cap.getKey(), cap.getValue())) {
        release.run();
        throw new AccessLimitExceededException(AccessLimiter.Kind.STREAMS, 5);
      }
      taken.add(cap.getKey());
    }
    return release;
  }

  /**
   * One place under the cap, atomically per key (no window between reading the count and writing
   * it).
   */
  private boolean tryTake(String key, int cap) {
    boolean[] took = {false};
    open.compute(
        key,
        (k, n) -> {
          int count = n == null ? 0 : n;
          if (count >= cap) {
            return n;
          }
          took[0] = true;
          return count + 1;
        });
    return took[0];
  }

  /** Open streams of this instance. */
  int open() {
    return open.getOrDefault(TOTAL, 0);
  }
}
