package dev.questionflow.activities.redis;

import dev.questionflow.activities.resilience.BreakerSettings;
import io.lettuce.core.RedisException;
import java.time.Duration;

/**
 * A write reached the master but fewer replicas than {@code cs.redis.wait-replicas} acknowledged it
 * in time: a failover now could lose it, so the caller repeats it (the ticket activities are
 * retried by Temporal; their writes are idempotent). Not a failure of Redis for its circuit
 * breaker: the master answers, and the other stores keep using it.
 */
public final class NotReplicatedException extends RedisException
    implements BreakerSettings.NotADependencyFailure {

  public NotReplicatedException(String key, long acknowledged, int wanted, Duration timeout) {
    super(
        "write of "
            + key
            + " acknowledged by "
            + acknowledged
            + " of "
            + wanted
            + " replicas within "
            + timeout.toMillis()
            + " ms (cs.redis.wait-replicas): on the master only, a failover now could lose it");
  }
}
