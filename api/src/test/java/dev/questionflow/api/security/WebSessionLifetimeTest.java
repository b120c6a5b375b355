package dev.questionflow.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/** Issue 28, item 11: a web session renewed forever still ends (absolute lifetime). */
class WebSessionLifetimeTest {

  /** A clock the test moves. */
  private static final class Manual extends Clock {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private final Manual clock = new Manual();
  private final WebSessions sessions =
      new WebSessions(
          ServerSecret.of("lifetime-test-secret-0123456789", null),
          Duration.ofHours(12),
          Duration.ofHours(24),
          clock);

  private String visitor(String token) {
    return ((Requester)
            sessions
                .authenticationProvider()
                .authenticate(new BearerTokenAuthenticationToken(token))
                .getPrincipal())
        .visitorId();
  }

  @Test
  void aSessionRenewedBeforeEachExpiryEndsAtItsAbsoluteLifetime() {
    WebSessions.Issued first = sessions.renew(Optional.empty());
    WebSessions.Issued current = first;
    // renewed every 10 h, always while valid (ttl 12 h)
    for (int i = 0; i < 2; i++) {
      clock.now = clock.now.plus(Duration.ofHours(10));
      current = sessions.renew(Optional.of(current.token()));
      assertThat(current.visitorId()).isEqualTo(first.visitorId());
    }
    // 20 h after the start: the renewal is cut at 24 h, not 32 h
    assertThat(current.expiresAt()).isEqualTo(Instant.parse("2026-01-02T00:00:00Z"));
    assertThat(current.ttl()).isEqualTo(Duration.ofHours(4));
    assertThat(visitor(current.token())).isEqualTo(first.visitorId());

    clock.now = clock.now.plus(Duration.ofHours(4)).plusSeconds(61); // past 24 h and the skew
    String expired = current.token();
    assertThatThrownBy(() -> visitor(expired)).isInstanceOf(AuthenticationException.class);
    WebSessions.Issued after = sessions.renew(Optional.of(expired));
    assertThat(after.visitorId()).as("a new visitor").isNotEqualTo(first.visitorId());
  }

  @Test
  void theLifetimeMayNotBeShorterThanOneSession() {
    assertThatThrownBy(
            () ->
                new WebSessions(
                    ServerSecret.of("lifetime-test-secret-0123456789", null),
                    Duration.ofHours(12),
                    Duration.ofHours(1),
                    clock))
        .hasMessageContaining("web-session-max-lifetime");
  }
}
