package dev.questionflow.activities.redis;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection opened at first use instead of at start-up, so the service starts, and answers at
 * the lower levels, while Redis is down. Lettuce has no lazy connection of its own: a failed
 * connect is tried again at a later use, at most once per {@code retryInterval}. Once connected,
 * Lettuce reconnects by itself.
 */
final class LazyLink implements AutoCloseable {

  // under LazyRedis's name: the connect lines operators know from before there were several links
  private static final Logger log = LoggerFactory.getLogger(LazyRedis.class);

  private final RedisConnector connector;
  private final Duration retryInterval;
  private final String purpose;
  private volatile RedisLink<String> link;
  private long nextAttemptNanos = System.nanoTime();
  private RuntimeException lastFailure;

  /**
   * @param purpose what the connection is for, in its log lines
   */
  LazyLink(RedisConnector connector, Duration retryInterval, String purpose) {
    this.connector = connector;
    this.retryInterval = retryInterval;
    this.purpose = purpose;
  }

  /** The connection; throws (a RedisException) when Redis cannot be reached now. */
  RedisLink<String> get() {
    RedisLink<String> open = link;
    return open != null ? open : connect();
  }

  boolean connected() {
    RedisLink<String> open = link;
    return open != null && open.isOpen();
  }

  private synchronized RedisLink<String> connect() {
    if (link != null) {
      return link;
    }
    String where = connector.topology().describe();
    if (System.nanoTime() < nextAttemptNanos) {
      throw new RedisConnectionException(
          "Redis at " + where + " is not reachable (next try within " + retryInterval + ")",
          lastFailure);
    }
    try {
      link = connector.connect(StringCodec.UTF8);
      log.info("Redis connected ({}): {}", purpose, where);
      return link;
    } catch (RuntimeException e) {
      lastFailure = e;
      nextAttemptNanos = System.nanoTime() + retryInterval.toNanos();
      log.warn(
          "Redis at {} is not reachable ({}); the stores use their fallbacks and try again",
          where,
          e.toString());
      throw e;
    }
  }

  @Override
  public synchronized void close() {
    if (link != null) {
      link.connection().close();
    }
  }
}
