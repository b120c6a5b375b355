package dev.questionflow.activities.status;

import dev.questionflow.activities.redis.LazyRedis;
import dev.questionflow.workflows.codec.SealedText;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Published statuses in Redis. Keys and channels:
 *
 * <ul>
 *   <li>{@code cs:status:{<workflowId>}} hash {@code v} (version), {@code at} (published, epoch
 *       ms), {@code s} (the status as JSON, sealed like tickets: it holds the answer's text),
 *       {@code life} (the run ID of the Redis that stored it: another one serving it means a
 *       restart or failover since, which may have lost a later change), expiring {@code keyTtl}
 *       after its last change. The braces are a hash tag (one key per script, so one slot on a
 *       cluster). Written by one script that keeps a newer version only, so a delayed publication
 *       never replaces a later one;
 *   <li>channel {@code cs:status:changes}: {@code <workflowId> <version> <published> <sealed JSON>}
 *       for every kept change, published by the same script;
 *   <li>channel {@code cs:lane:changes}: {@code <lane> <epoch ms>} when a model lane's line
 *       changed.
 * </ul>
 *
 * Pub/sub loses what is published while a subscriber reconnects: a listener hears {@link
 * Listener#subscribed()} after every (re)subscription and reads the keys again.
 */
public final class RedisStatusStore implements StatusStore {

  private static final Logger log = LoggerFactory.getLogger(RedisStatusStore.class);

  static final String CHANGES = "cs:status:changes";
  static final String LANES = "cs:lane:changes";

  /** The sealed JSON's field (part of its place: a value copied to another key does not open). */
  static final String FIELD = "s";

  /**
   * KEYS[1] the status key; ARGV version, published at, sealed JSON, TTL ms, channel ('' for none),
   * message. Keeps a strictly newer version only; returns 1 when kept.
   */
  static final String SET_IF_NEWER =
      """
      local current = tonumber(redis.call('HGET', KEYS[1], 'v') or '-1')
      if current >= tonumber(ARGV[1]) then return 0 end
      local life = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
      redis.call('HSET', KEYS[1], 'v', ARGV[1], 'at', ARGV[2], 's', ARGV[3], 'life', life)
      redis.call('PEXPIRE', KEYS[1], ARGV[4])
      if ARGV[5] ~= '' then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
      return 1
      """;

  /**
   * KEYS[1] the status key. Its version, publication time, sealed status, the run ID that stored
   * it, and the run ID of the Redis serving it now (the node that holds the key, on a cluster).
   */
  static final String READ =
      """
      local stored = redis.call('HMGET', KEYS[1], 'v', 'at', 's', 'life')
      local life = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
      return {stored[1], stored[2], stored[3], stored[4], life}
      """;

  private final Supplier<RedisClusterCommands<String, String>> redis;
  private final Supplier<StatefulRedisPubSubConnection<String, String>> pubSub;
  private final SealedText sealed;
  private final Duration keyTtl;
  private final Duration retryInterval;
  private final Clock clock;
  private volatile StatefulRedisPubSubConnection<String, String> subscription;

  /**
   * The life's start as last asked, and when it was asked (epoch ms): asked at most once a second.
   */
  private volatile long[] life;

  private ScheduledExecutorService connecting;

  /**
   * @param keyTtl how long a question's status is kept after its last change (then reads go to
   *     Temporal)
   * @param retryInterval between attempts to subscribe while Redis cannot be reached
   */
  public RedisStatusStore(
      LazyRedis redis, SealedText sealed, Duration keyTtl, Duration retryInterval, Clock clock) {
    this(redis, redis.connector()::connectPubSub, sealed, keyTtl, retryInterval, clock);
  }

  /**
   * @param redis the shared connection's commands, asked for at each use
   * @param pubSub opens the subscription's own connection
   */
  public RedisStatusStore(
      Supplier<RedisClusterCommands<String, String>> redis,
      Supplier<StatefulRedisPubSubConnection<String, String>> pubSub,
      SealedText sealed,
      Duration keyTtl,
      Duration retryInterval,
      Clock clock) {
    this.redis = redis;
    this.pubSub = pubSub;
    this.sealed = sealed;
    this.keyTtl = keyTtl;
    this.retryInterval = retryInterval;
    this.clock = clock;
  }

  static String key(String workflowId) {
    return "cs:status:{" + workflowId + "}";
  }

  private SealedText.Place place(String workflowId) {
    return new SealedText.Place(key(workflowId), FIELD);
  }

  @Override
  public boolean offer(PublishedStatus status) {
    String value = sealed.seal(StatusJson.write(status.status()), place(status.workflowId()));
    String message =
        status.workflowId()
            + " "
            + status.version()
            + " "
            + status.publishedAtMillis()
            + " "
            + value;
    return write(status, value, CHANGES, message);
  }

  @Override
  public void offerFirst(PublishedStatus status) {
    String value = sealed.seal(StatusJson.write(status.status()), place(status.workflowId()));
    write(status, value, "", "");
  }

  private boolean write(PublishedStatus status, String value, String channel, String message) {
    Long kept =
        redis
            .get()
            .eval(
                SET_IF_NEWER,
                ScriptOutputType.INTEGER,
                new String[] {key(status.workflowId())},
                Long.toString(status.version()),
                Long.toString(status.publishedAtMillis()),
                value,
                Long.toString(keyTtl.toMillis()),
                channel,
                message);
    return kept != null && kept == 1;
  }

  @Override
  public PublishedStatus latest(String workflowId) {
    List<Object> stored =
        redis.get().eval(READ, ScriptOutputType.MULTI, new String[] {key(workflowId)});
    if (stored == null || stored.get(0) == null || stored.get(2) == null) {
      return null;
    }
    Object life = stored.get(3);
    return new PublishedStatus(
        workflowId,
        Long.parseLong((String) stored.get(0)),
        stored.get(1) == null ? 0 : Long.parseLong((String) stored.get(1)),
        StatusJson.read(sealed.open((String) stored.get(2), place(workflowId))),
        // a key of a build that recorded no life counts as one of an earlier life
        life == null || !life.equals(stored.get(4)));
  }

  @Override
  public void laneChanged(String lane) {
    redis.get().publish(LANES, lane + " " + clock.millis());
  }

  @Override
  public synchronized void listen(Listener listener) {
    if (connecting != null) {
      throw new IllegalStateException("one listener only");
    }
    connecting =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "status-subscriber");
              thread.setDaemon(true);
              return thread;
            });
    connecting.execute(() -> subscribe(listener));
  }

  /** Subscribes, or tries again after the retry interval; Lettuce resubscribes after that. */
  private void subscribe(Listener listener) {
    try {
      StatefulRedisPubSubConnection<String, String> connection = pubSub.get();
      connection.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              dispatch(listener, channel, message);
            }

            @Override
            public void subscribed(String channel, long count) {
              if (CHANGES.equals(channel)) {
                listener.subscribed();
              }
            }
          });
      connection.sync().subscribe(CHANGES, LANES);
      subscription = connection;
      log.info("status streams: subscribed to {} and {}", CHANGES, LANES);
    } catch (RuntimeException e) {
      log.warn(
          "status streams: cannot subscribe to Redis ({}), streams poll until it can; trying again"
              + " in {}",
          e.toString(),
          retryInterval);
      connecting.schedule(
          () -> subscribe(listener), retryInterval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void dispatch(Listener listener, String channel, String message) {
    try {
      if (LANES.equals(channel)) {
        int space = message.lastIndexOf(' ');
        listener.lane(message.substring(0, space), Long.parseLong(message.substring(space + 1)));
        return;
      }
      List<String> parts = List.of(message.split(" ", 4));
      String workflowId = parts.get(0);
      long version = Long.parseLong(parts.get(1));
      long at = Long.parseLong(parts.get(2));
      String value = parts.get(3);
      listener.status(
          workflowId,
          version,
          () ->
              new PublishedStatus(
                  workflowId, version, at, StatusJson.read(sealed.open(value, place(workflowId)))));
    } catch (RuntimeException e) {
      log.warn("status streams: a notice on {} not understood: {}", channel, e.toString());
    }
  }

  @Override
  public boolean live() {
    StatefulRedisPubSubConnection<String, String> connection = subscription;
    return connection != null && connection.isOpen();
  }

  @Override
  public String kind() {
    return "redis";
  }

  /** Stops listening (the shared connections are LazyRedis's to close). */
  @Override
  public synchronized void close() {
    if (connecting != null) {
      connecting.shutdownNow();
    }
    if (subscription != null) {
      subscription.close();
    }
  }
}
