package dev.questionflow.activities.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one Lettuce client and connection of every Redis store, opened at first use instead of at
 * start-up, so the service starts, and answers at the lower levels, while Redis is down. Every
 * command is bounded by the client's timeout and rejected at once while disconnected (instead of
 * queued without bound); once connected, Lettuce reconnects by itself. Lettuce has no lazy
 * connection of its own: a failed first connect is tried again at a later use, at most once per
 * {@code retryInterval}.
 */
public final class LazyRedis implements Supplier<RedisCommands<String, String>>, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LazyRedis.class);

  private final RedisClient client;
  private final RedisURI uri;
  private final Duration retryInterval;
  private volatile StatefulRedisConnection<String, String> connection;
  private long nextAttemptNanos = System.nanoTime();
  private RuntimeException lastFailure;

  /**
   * @param commandTimeout each command's limit, and the connect timeout
   */
  public LazyRedis(String url, Duration commandTimeout, Duration retryInterval) {
    this(url, commandTimeout, retryInterval, null);
  }

  /**
   * @param url {@code redis://} or, for TLS, {@code rediss://} (the server's certificate verified)
   * @param tlsCa PEM file of a private CA that signed the server's certificate; null = the JDK's
   *     trusted CAs
   */
  public LazyRedis(String url, Duration commandTimeout, Duration retryInterval, Path tlsCa) {
    this.uri = RedisURI.create(url);
    this.uri.setTimeout(commandTimeout);
    this.client = RedisClient.create();
    ClientOptions.Builder options =
        ClientOptions.builder()
            .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .autoReconnect(true);
    if (tlsCa != null && !uri.isSsl()) {
      // Lettuce would silently talk plain TCP: whoever set a CA expected TLS
      log.warn(
          "REDIS_TLS_CA is set but REDIS_URL is not rediss://: the CA is IGNORED and the connection to"
              + " Redis at {}:{} is NOT encrypted. Use rediss:// for TLS, or unset REDIS_TLS_CA.",
          uri.getHost(),
          uri.getPort());
    }
    if (tlsCa != null) {
      options.sslOptions(
          SslOptions.builder().jdkSslProvider().trustManager(tlsCa.toFile()).build());
    }
    this.client.setOptions(options.build());
    this.retryInterval = retryInterval;
  }

  /** The client, for stores that need connections of their own codec (the token buckets). */
  public RedisClient client() {
    return client;
  }

  public RedisURI uri() {
    return uri;
  }

  /**
   * The commands of the shared connection; throws (a RedisException) when Redis cannot be reached
   * now.
   */
  @Override
  public RedisCommands<String, String> get() {
    StatefulRedisConnection<String, String> open = connection;
    return (open != null ? open : connect()).sync();
  }

  public boolean connected() {
    StatefulRedisConnection<String, String> open = connection;
    return open != null && open.isOpen();
  }

  private synchronized StatefulRedisConnection<String, String> connect() {
    if (connection != null) {
      return connection;
    }
    if (System.nanoTime() < nextAttemptNanos) {
      throw new RedisConnectionException(
          "Redis at "
              + uri.getHost()
              + ":"
              + uri.getPort()
              + " is not reachable"
              + " (next try within "
              + retryInterval
              + ")",
          lastFailure);
    }
    try {
      connection = client.connect(uri);
      log.info("Redis connected: {}:{}", uri.getHost(), uri.getPort());
      return connection;
    } catch (RuntimeException e) {
      lastFailure = e;
      nextAttemptNanos = System.nanoTime() + retryInterval.toNanos();
      log.warn(
          "Redis at {}:{} is not reachable ({}); the stores use their fallbacks and try again",
          uri.getHost(),
          uri.getPort(),
          e.toString());
      throw e;
    }
  }

  @Override
  public synchronized void close() {
    if (connection != null) {
      connection.close();
    }
    client.shutdown();
  }
}
