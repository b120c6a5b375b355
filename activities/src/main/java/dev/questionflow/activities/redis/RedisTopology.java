package dev.questionflow.activities.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterURIUtil;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What {@code REDIS_URL} names: one Redis, a Sentinel-managed master, or a Redis Cluster.
 *
 * <ul>
 *   <li>{@code redis://[:password@]host:port[/db]}, {@code rediss://…} (TLS): one Redis;
 *   <li>{@code redis-sentinel://[:password@]s1:26379,s2:26379[/db]#<master>}, {@code
 *       rediss-sentinel://…}: the master a Sentinel group names (Lettuce's own form);
 *   <li>{@code redis-cluster://[:password@]h1:p1,h2:p2}, {@code rediss-cluster://…}: a Redis
 *       Cluster, any reachable nodes as seeds (the client learns the rest).
 * </ul>
 *
 * A URL that is none of these is refused at start-up with what was expected (never with its
 * password).
 */
public record RedisTopology(Kind kind, List<RedisURI> nodes) {

  public enum Kind {
    STANDALONE,
    SENTINEL,
    CLUSTER
  }

  static final String FORMS =
      "redis://[:password@]host:port, rediss://... (TLS), redis-sentinel://[:password@]host:port[,host:port...]#master"
          + " (or rediss-sentinel://), redis-cluster://[:password@]host:port[,host:port...] (or rediss-cluster://)";

  public RedisTopology {
    nodes = List.copyOf(nodes);
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("a Redis topology needs at least one node");
    }
  }

  /**
   * @throws IllegalArgumentException naming the accepted forms when {@code url} is none of them
   */
  public static RedisTopology parse(String url) {
    if (url == null || url.isBlank()) {
      throw invalid(url, "it is empty");
    }
    int schemeEnd = url.indexOf("://");
    if (schemeEnd <= 0) {
      throw invalid(url, "it has no scheme");
    }
    String scheme = url.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    try {
      return switch (scheme) {
        case "redis", "rediss", "redis-socket" ->
            new RedisTopology(Kind.STANDALONE, List.of(standalone(url)));
        case "redis-sentinel", "rediss-sentinel" ->
            new RedisTopology(Kind.SENTINEL, List.of(sentinel(url)));
        case "redis-cluster", "rediss-cluster" ->
            new RedisTopology(Kind.CLUSTER, cluster(scheme, url.substring(schemeEnd)));
        default -> throw invalid(url, "unknown scheme '" + scheme + "'");
      };
    } catch (RuntimeException e) { // Lettuce's parsers throw IllegalArgumentException, or worse
      if (e.getMessage() != null && e.getMessage().startsWith("REDIS_URL")) {
        throw e;
      }
      throw invalid(url, String.valueOf(e.getMessage()));
    }
  }

  private static RedisURI standalone(String url) {
    RedisURI uri = RedisURI.create(url);
    if (uri.getHost() == null && uri.getSocket() == null) {
      throw new IllegalArgumentException("no host");
    }
    return uri;
  }

  private static RedisURI sentinel(String url) {
    if (!url.contains("#") || url.endsWith("#")) {
      throw new IllegalArgumentException(
          "no master name: end the URL with #<master>, the name the sentinels monitor");
    }
    RedisURI uri = RedisURI.create(url);
    if (uri.getSentinels().isEmpty()) {
      throw new IllegalArgumentException("no sentinel host");
    }
    if (uri.getSentinelMasterId() == null || uri.getSentinelMasterId().isBlank()) {
      throw new IllegalArgumentException(
          "no master name: end the URL with #<master>, the name the sentinels monitor");
    }
    return uri;
  }

  /** Lettuce's cluster seeds: the comma-separated nodes of one redis:// URL, sharing its auth. */
  private static List<RedisURI> cluster(String scheme, String rest) {
    String plain = (scheme.startsWith("rediss") ? "rediss" : "redis") + rest;
    List<RedisURI> seeds = RedisClusterURIUtil.toRedisURIs(URI.create(plain));
    for (RedisURI seed : seeds) {
      if (seed.getHost() == null || seed.getHost().isBlank()) {
        throw new IllegalArgumentException("a node without a host");
      }
    }
    return seeds;
  }

  private static IllegalArgumentException invalid(String url, String why) {
    return new IllegalArgumentException(
        "REDIS_URL (cs.redis.url) '"
            + withoutPassword(url)
            + "' is not a Redis URL ("
            + withoutPassword(why) // a parser's message may quote the URL
            + "). Expected one of: "
            + FORMS);
  }

  /** The URL as it may be logged: any password replaced. */
  static String withoutPassword(String url) {
    return url == null ? "" : url.replaceAll("//[^@/]*@", "//***@");
  }

  public boolean ssl() {
    return nodes.get(0).isSsl();
  }

  /** For logs and errors: the kind and the addresses, never a password. */
  public String describe() {
    return switch (kind) {
      case STANDALONE -> address(nodes.get(0));
      case SENTINEL ->
          "master '"
              + nodes.get(0).getSentinelMasterId()
              + "' of the sentinels "
              + nodes.get(0).getSentinels().stream()
                  .map(RedisTopology::address)
                  .collect(Collectors.joining(","));
      case CLUSTER ->
          "cluster via "
              + nodes.stream().map(RedisTopology::address).collect(Collectors.joining(","));
    };
  }

  private static String address(RedisURI uri) {
    return uri.getSocket() != null ? uri.getSocket() : uri.getHost() + ":" + uri.getPort();
  }
}
