package dev.questionflow.activities.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.redis.RedisTopology.Kind;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** REDIS_URL's three forms, and what stops the start. */
class RedisTopologyTest {

  @Test
  void redisAndRedissNameOneRedis() {
    RedisTopology plain = RedisTopology.parse("redis://:secret@cache.internal:6380/2");
    assertThat(plain.kind()).isEqualTo(Kind.STANDALONE);
    RedisURI node = plain.nodes().get(0);
    assertThat(node.getHost()).isEqualTo("cache.internal");
    assertThat(node.getPort()).isEqualTo(6380);
    assertThat(node.getDatabase()).isEqualTo(2);
    assertThat(new String(node.getCredentialsProvider().resolveCredentials().block().getPassword()))
        .isEqualTo("secret");
    assertThat(plain.ssl()).isFalse();
    assertThat(plain.describe()).isEqualTo("cache.internal:6380").doesNotContain("secret");

    assertThat(RedisTopology.parse("rediss://cache.internal:6380").ssl()).isTrue();
  }

  @Test
  void redisSentinelNamesTheSentinelsAndTheirMaster() {
    RedisTopology sentinel =
        RedisTopology.parse("redis-sentinel://:pw@s1:26379,s2:26380,s3:26381#mymaster");
    assertThat(sentinel.kind()).isEqualTo(Kind.SENTINEL);
    RedisURI uri = sentinel.nodes().get(0);
    assertThat(uri.getSentinelMasterId()).isEqualTo("mymaster");
    assertThat(uri.getSentinels())
        .extracting(s -> s.getHost() + ":" + s.getPort())
        .containsExactly("s1:26379", "s2:26380", "s3:26381");
    assertThat(sentinel.describe())
        .isEqualTo("master 'mymaster' of the sentinels s1:26379,s2:26380,s3:26381");
    assertThat(RedisTopology.parse("rediss-sentinel://s1:26379#m").ssl()).isTrue();
  }

  @Test
  void redisClusterNamesItsSeedsWhichShareTheAuthAndTls() {
    RedisTopology cluster =
        RedisTopology.parse("redis-cluster://:pw@10.0.0.1:7000,10.0.0.2:7001,10.0.0.3");
    assertThat(cluster.kind()).isEqualTo(Kind.CLUSTER);
    assertThat(cluster.nodes())
        .extracting(n -> n.getHost() + ":" + n.getPort())
        .containsExactly("10.0.0.1:7000", "10.0.0.2:7001", "10.0.0.3:6379");
    assertThat(cluster.nodes())
        .allSatisfy(
            n ->
                assertThat(
                        new String(
                            n.getCredentialsProvider().resolveCredentials().block().getPassword()))
                    .isEqualTo("pw"));
    assertThat(cluster.describe())
        .isEqualTo("cluster via 10.0.0.1:7000,10.0.0.2:7001,10.0.0.3:6379");
    assertThat(cluster.ssl()).isFalse();

    RedisTopology tls = RedisTopology.parse("rediss-cluster://h1:7000,h2:7000");
    assertThat(tls.ssl()).isTrue();
    assertThat(tls.nodes()).allMatch(RedisURI::isSsl);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "localhost:6379",
        "http://localhost:6379",
        "redis-sentinel://s1:26379,s2:26379",
        "redis-cluster://",
        "redis://:hunter2@bad host:6379"
      })
  void anythingElseStopsTheStartNamingTheFormsButNotThePassword(String url) {
    assertThatThrownBy(() -> RedisTopology.parse(url))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("REDIS_URL")
        .hasMessageContaining("redis-sentinel://")
        .hasMessageContaining("redis-cluster://")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void aSentinelUrlWithoutItsMasterSaysWhatIsMissing() {
    assertThatThrownBy(() -> RedisTopology.parse("redis-sentinel://s1:26379"))
        .hasMessageContaining("#<master>");
  }
}
