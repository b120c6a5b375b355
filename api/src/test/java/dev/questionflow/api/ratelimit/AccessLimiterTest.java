package dev.questionflow.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.questionflow.api.ratelimit.AccessLimitsProperties.Limit;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.mock.web.MockHttpServletRequest;

/** The limiter with per-instance (Bucket4j local) buckets and a hand-moved clock. */
class AccessLimiterTest {

  private final ManualClock clock = new ManualClock();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  private AccessLimiter limiter(Limit global, Limit perUser, Limit perIp) {
    return new AccessLimiter(
        AccessLimitsProperties.defaults().withLimits(global, perUser, perIp), null, clock, meters);
  }

  private double count(String metric, String... tags) {
    var search = meters.find(metric);
    if (tags.length > 0) {
      search = search.tags(tags);
    }
    var counter = search.counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void perUserOverLimitIsRefusedWith429AndRetryAfter() {
    AccessLimiter limiter = limiter(Limit.disabled(), Limit.of(3, 1), Limit.disabled());
    for (int i = 0; i < 3; i++) {
      assertThat(limiter.admit("alice", "10.0.0.1").queued()).isFalse();
    }

    AccessLimitExceededException refused =
        catchThrowableOfType(
            AccessLimitExceededException.class, () -> limiter.admit("alice", "10.0.0.1"));

    assertThat(refused.getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
    assertThat(refused.limit()).isEqualTo(AccessLimiter.Kind.USER);
    assertThat(refused.retryAfterSeconds()).isEqualTo(1);
    assertThat(refused.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
    assertThat(refused.getBody().getProperties()).containsEntry("limit", "user");
    assertThat(count(AccessLimiter.REJECTED_METRIC, "limit", "user")).isEqualTo(1);
    assertThat(count(AccessLimiter.REJECTED_METRIC, "limit", "ip")).isZero();
    // another user is not affected
    assertThat(limiter.admit("bob", "10.0.0.1").queued()).isFalse();
  }

  @Test
  void retryAfterIsTheBucketsWaitRoundedUpToWholeSeconds() {
    AccessLimiter limiter = limiter(Limit.disabled(), Limit.of(1, 1), Limit.disabled());
    limiter.admit("carol", "10.0.0.1");
    clock.advance(Duration.ofMillis(100)); // 0.9 s left: rounds up to 1
    assertThat(
            catchThrowableOfType(
                    AccessLimitExceededException.class, () -> limiter.admit("carol", "10.0.0.1"))
                .retryAfterSeconds())
        .isEqualTo(1);

    assertThat(AccessLimiter.retryAfterSeconds(0)).isEqualTo(1);
    assertThat(AccessLimiter.retryAfterSeconds(1_000_000_000L)).isEqualTo(1);
    assertThat(AccessLimiter.retryAfterSeconds(1_000_000_001L)).isEqualTo(2);
    assertThat(AccessLimiter.retryAfterSeconds(2_500_000_000L)).isEqualTo(3);
  }

  @Test
  void perIpOverLimitIsRefusedAndTheUserTokenIsGivenBack() {
    AccessLimiter limiter = limiter(Limit.disabled(), Limit.of(5, 1), Limit.of(2, 1));
    limiter.admit("u1", "192.0.2.7");
    limiter.admit("u2", "192.0.2.7");

    AccessLimitExceededException refused =
        catchThrowableOfType(
            AccessLimitExceededException.class, () -> limiter.admit("u3", "192.0.2.7"));

    assertThat(refused.limit()).isEqualTo(AccessLimiter.Kind.IP);
    assertThat(refused.getBody().getProperties()).containsEntry("limit", "ip");
    assertThat(count(AccessLimiter.REJECTED_METRIC, "limit", "ip")).isEqualTo(1);
    assertThat(limiter.availableUserTokens("u3"))
        .isEqualTo(5); // the refused request cost u3 nothing
    assertThat(limiter.admit("u3", "192.0.2.8").queued()).isFalse(); // another address is fine
  }

  @Test
  void overTheGlobalLimitAQuestionIsAcceptedAsQueued() {
    AccessLimiter limiter = limiter(Limit.of(2, 1), Limit.of(10, 5), Limit.of(10, 5));

    assertThat(limiter.admit("a", "10.0.0.1").queued()).isFalse();
    assertThat(limiter.admit("b", "10.0.0.2").queued()).isFalse();
    Admission third = limiter.admit("c", "10.0.0.3");
    Admission fourth = limiter.admit("d", "10.0.0.4");

    assertThat(third.queued()).isTrue();
    assertThat(fourth.queued()).isTrue();
    assertThat(count(AccessLimiter.QUEUED_METRIC)).isEqualTo(2);
    assertThat(count(AccessLimiter.REJECTED_METRIC, "limit", "user")).isZero();
    assertThat(count(AccessLimiter.REJECTED_METRIC, "limit", "ip")).isZero();
  }

  @Test
  void bucketsRefillWithTime() {
    AccessLimiter limiter = limiter(Limit.of(1, 1), Limit.of(2, 2), Limit.disabled());
    limiter.admit("dave", "10.0.0.1");
    assertThat(limiter.admit("dave", "10.0.0.1").queued()).isTrue();
    assertThatThrownBy(() -> limiter.admit("dave", "10.0.0.1"))
        .isInstanceOf(AccessLimitExceededException.class);

    clock.advance(Duration.ofMillis(500)); // 2/s: one token back for dave; 1/s: none yet for global
    Admission halfSecond = limiter.admit("dave", "10.0.0.1");
    assertThat(halfSecond.queued()).isTrue();
    assertThatThrownBy(() -> limiter.admit("dave", "10.0.0.1"))
        .isInstanceOf(AccessLimitExceededException.class);

    clock.advance(Duration.ofSeconds(10)); // full again, never above capacity
    assertThat(limiter.availableUserTokens("dave")).isEqualTo(2);
    assertThat(limiter.admit("dave", "10.0.0.1").queued()).isFalse();
  }

  @Test
  void aRefundGivesTheTokensBackUpToTheCapacity() {
    AccessLimiter limiter = limiter(Limit.disabled(), Limit.of(2, 1), Limit.disabled());
    Admission first = limiter.admit("erin", "10.0.0.1");
    Admission duplicate = limiter.admit("erin", "10.0.0.1");
    limiter.refund(duplicate);
    assertThat(limiter.availableUserTokens("erin")).isEqualTo(1);
    limiter.refund(first);
    limiter.refund(first);
    assertThat(limiter.availableUserTokens("erin")).isEqualTo(2);
  }

  @Test
  void disabledLimitsNeverRefuse() {
    AccessLimiter limiter = limiter(Limit.disabled(), Limit.disabled(), Limit.disabled());
    for (int i = 0; i < 1000; i++) {
      assertThat(limiter.admit("frank", "10.0.0.1").queued()).isFalse();
    }
    AccessLimiter off =
        new AccessLimiter(
            new AccessLimitsProperties(
                false,
                Limit.of(1, 1),
                Limit.of(1, 1),
                Limit.of(1, 1),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null),
            null,
            clock,
            new SimpleMeterRegistry());
    for (int i = 0; i < 10; i++) {
      assertThat(off.admit("frank", "10.0.0.1")).isEqualTo(Admission.UNLIMITED);
    }
  }

  @Test
  void withoutRedisTheLimitsArePerInstanceAndNothingFallsBack() {
    AccessLimiter limiter = limiter(Limit.of(1, 1), Limit.of(1, 1), Limit.of(1, 1));
    limiter.admit("gina", "10.0.0.1");
    assertThat(limiter.distributed()).isFalse();
    assertThat(meters.get(AccessLimiter.DISTRIBUTED_GAUGE).gauge().value()).isZero();
    assertThat(count(AccessLimiter.FALLBACK_METRIC)).isZero();
  }

  @Test
  void defaultsAreTheSpecNumbers() {
    AccessLimitsProperties defaults = AccessLimitsProperties.defaults();
    assertThat(defaults.global())
        .isEqualTo(new Limit(true, 10L, 20L)); // 20/s, burst 10 for the instance group
    assertThat(defaults.perUser().on()).isTrue();
    assertThat(defaults.perIp().on()).isTrue();
    assertThat(defaults.perCaller().on()).isTrue();
    assertThat(defaults.perVisitor().on()).isTrue();
  }

  @Test
  void theClientIpIsTheSocketPeerUnlessThatPeerIsATrustedProxy() {
    MockHttpServletRequest direct = request("198.51.100.7", "6.6.6.6");
    assertThat(new ClientIp(List.of()).of(direct)).as("nobody trusted").isEqualTo("198.51.100.7");
    assertThat(new ClientIp(List.of("10.0.0.0/8")).of(direct))
        .as("peer is no proxy")
        .isEqualTo("198.51.100.7");

    ClientIp behindProxies = new ClientIp(List.of("10.0.0.0/8", "192.0.2.1"));
    // right-most untrusted hop: the caller wrote 6.6.6.6 itself, the proxies added 203.0.113.9 and
    // 192.0.2.1
    assertThat(behindProxies.of(request("10.1.2.3", "6.6.6.6, 203.0.113.9, 192.0.2.1")))
        .isEqualTo("203.0.113.9");
    assertThat(behindProxies.of(request("10.1.2.3", "2001:db8::1"))).isEqualTo("2001:db8::1");
    assertThat(behindProxies.of(request("10.1.2.3", "<script>")))
        .as("garbage")
        .isEqualTo("10.1.2.3");
    assertThat(behindProxies.of(request("10.1.2.3", "10.9.9.9")))
        .as("only proxies")
        .isEqualTo("10.9.9.9");
    assertThat(behindProxies.of(request("10.1.2.3", null))).isEqualTo("10.1.2.3");
  }

  private static MockHttpServletRequest request(String peer, String forwardedFor) {
    MockHttpServletRequest request = new MockHttpServletRequest();
    request.setRemoteAddr(peer);
    if (forwardedFor != null) {
      request.addHeader(ClientIp.FORWARDED_FOR, forwardedFor);
    }
    return request;
  }
}
