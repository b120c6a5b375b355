package dev.questionflow.activities.lane;

import dev.questionflow.activities.redis.RedisConnector;
import dev.questionflow.activities.redis.RedisLink;
import io.github.bucket4j.BlockingStrategy;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Buckets in Redis through Bucket4j's Lettuce proxy manager (compare-and-swap Lua scripts, so every
 * instance sees one bucket per key). Owns one dedicated connection with the String/byte[] codec
 * Bucket4j needs, opened in the background: a request never waits for a connect, and while there is
 * no connection {@link #tryConsume} throws (the limiter then uses its local buckets). Keys expire
 * once their bucket would be full again. Any topology ({@link RedisConnector}): a bucket is one
 * key, so each script stays in one slot of a cluster.
 */
public final class RedisBuckets implements BucketStore, AutoCloseable {

  private static final RedisCodec<String, byte[]> CODEC =
      RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

  private final RedisConnector connector;
  private final Duration requestTimeout;
  private final TimeMeter clock;
  private CompletableFuture<RedisLink<byte[]>> connecting; // guarded by this
  private volatile RedisLink<byte[]> connection;
  private volatile ProxyManager<String> proxies;
  private volatile boolean closed;

  /**
   * @param connector the app's Lettuce client (shared event loops); this store opens its own
   *     connection on it
   * @param clock Bucket4j's client clock: wall-clock based, so that all instances agree on refill
   *     times
   */
  public RedisBuckets(RedisConnector connector, Duration requestTimeout, TimeMeter clock) {
    this.connector = connector;
    this.requestTimeout = requestTimeout;
    this.clock = clock;
  }

  /** On one Redis, through a client the caller owns. */
  public RedisBuckets(RedisClient client, RedisURI uri, Duration requestTimeout, TimeMeter clock) {
    this(RedisConnector.onClient(client, uri), requestTimeout, clock);
  }

  /** Starts a connection attempt unless connected or one is under way. */
  public synchronized CompletableFuture<RedisLink<byte[]>> connect() {
    if (closed) {
      return CompletableFuture.failedFuture(new IllegalStateException("closed"));
    }
    if (connection != null) {
      return CompletableFuture.completedFuture(connection);
    }
    if (connecting == null || connecting.isDone()) {
      connecting = connector.connectAsync(CODEC).thenApply(this::connected);
    }
    return connecting;
  }

  /** Waits up to {@code timeout} for the connection; false if there is none by then. */
  public boolean awaitConnected(Duration timeout) {
    try {
      connect().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  public boolean connected() {
    RedisLink<byte[]> current = connection;
    return current != null && current.isOpen();
  }

  private synchronized RedisLink<byte[]> connected(RedisLink<byte[]> c) {
    if (closed) {
      c.connection().closeAsync();
      throw new IllegalStateException("closed");
    }
    this.proxies =
        builderFor(c)
            .requestTimeout(requestTimeout)
            .clientClock(clock)
            .expirationAfterWrite(
                ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                    Duration.ofSeconds(10)))
            .build();
    this.connection = c;
    return c;
  }

  /** Bucket4j's builder for the connection's kind: a cluster's routes each bucket by its slot. */
  private static Bucket4jLettuce.LettuceBasedProxyManagerBuilder<String> builderFor(
      RedisLink<byte[]> link) {
    return link.connection() instanceof StatefulRedisClusterConnection<String, byte[]> cluster
        ? Bucket4jLettuce.casBasedBuilder(cluster)
        : Bucket4jLettuce.casBasedBuilder(
            (StatefulRedisConnection<String, byte[]>) link.connection());
  }

  /**
   * After a failure: a connection that was closed (not merely reconnecting) is dropped, so the next
   * try reopens it.
   */
  public synchronized void failed() {
    RedisLink<byte[]> current = connection;
    if (current != null && !current.isOpen()) {
      connection = null;
      proxies = null;
    }
  }

  private ProxyManager<String> proxies() {
    ProxyManager<String> current = proxies;
    if (current == null) {
      connect();
      throw new IllegalStateException("no Redis connection for the access limits (yet)");
    }
    return current;
  }

  @Override
  public ConsumptionProbe tryConsume(String key, BucketConfiguration configuration) {
    return proxies().builder().build(key, () -> configuration).tryConsumeAndReturnRemaining(1);
  }

  @Override
  public void refund(String key, BucketConfiguration configuration) {
    proxies().builder().build(key, () -> configuration).addTokens(1);
  }

  @Override
  public void consumeBlocking(
      String key, BucketConfiguration configuration, BlockingStrategy sleeper)
      throws InterruptedException {
    proxies().builder().build(key, () -> configuration).asBlocking().consume(1, sleeper);
  }

  @Override
  public void replaceConfiguration(String key, BucketConfiguration configuration) {
    proxies()
        .builder()
        .build(key, () -> configuration)
        .replaceConfiguration(configuration, TokensInheritanceStrategy.AS_IS);
  }

  /** Runs a Lua script that returns an integer, within this store's request timeout. */
  long evalInteger(String script, String[] keys, String... args) {
    RedisLink<byte[]> current = connection;
    if (current == null) {
      connect();
      throw new IllegalStateException("no Redis connection for the lane throttle (yet)");
    }
    byte[][] values = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      values[i] = args[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
    try {
      Long result =
          current
              .async()
              .<Long>eval(script, io.lettuce.core.ScriptOutputType.INTEGER, keys, values)
              .get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
      return result == null ? 0 : result;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Redis script failed: " + e, e);
    }
  }

  public long availableTokens(String key, BucketConfiguration configuration) {
    return proxies().builder().build(key, () -> configuration).getAvailableTokens();
  }

  /** Closes this store's connection (not the shared client). */
  @Override
  public synchronized void close() {
    closed = true;
    RedisLink<byte[]> current = connection;
    connection = null;
    proxies = null;
    if (current != null) {
      current.connection().close();
    }
  }

  /** Test hook: closes the connection as a Redis outage would, without closing the store. */
  public synchronized void dropConnectionForTest() {
    RedisLink<byte[]> current = connection;
    if (current != null) {
      current.connection().close();
    }
  }
}
