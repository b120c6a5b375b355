package dev.questionflow.api.security;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.SecretKey;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider;
import org.springframework.web.util.WebUtils;

/**
 * Anonymous web sessions of the public chat page: a JWT signed by the server (HMAC-SHA256 with a
 * key derived from the server secret) that names a server-chosen visitor ID and expires. Sent back
 * as an HttpOnly, SameSite=Strict cookie, so the page's EventSource (which cannot set headers)
 * carries it too.
 *
 * <p>A session is renewed for the same visitor while it is valid, but not beyond {@code
 * maxLifetime} from its start (the {@code auth_time} claim, carried over by every renewal): a
 * stolen cookie that is renewed forever ends, and so does a visitor ID.
 */
public final class WebSessions {

  public static final String COOKIE = "qf_web";
  static final String ISSUER = "questionflow-web";

  /** When the visitor's first session was issued (OIDC's name for it); renewals keep it. */
  static final String STARTED = "auth_time";

  /** A new session: the token (the cookie's value), its visitor and when it expires. */
  public record Issued(String token, String visitorId, Instant expiresAt, Duration ttl) {}

  private final NimbusJwtEncoder encoder;
  private final NimbusJwtDecoder decoder;
  private final Duration ttl;
  private final Duration maxLifetime;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  WebSessions(ServerSecret secret, Duration ttl, Duration maxLifetime, Clock clock) {
    if (maxLifetime.compareTo(ttl) < 0) {
      throw new IllegalArgumentException(
          "cs.security.web-session-max-lifetime ("
              + maxLifetime
              + ") must be at least cs.security.web-session-ttl ("
              + ttl
              + ")");
    }
    SecretKey key = secret.key("web-session");
    this.encoder = NimbusJwtEncoder.withSecretKey(key).algorithm(MacAlgorithm.HS256).build();
    this.decoder = NimbusJwtDecoder.withSecretKey(key).macAlgorithm(MacAlgorithm.HS256).build();
    JwtTimestampValidator expiry = new JwtTimestampValidator();
    expiry.setClock(clock);
    this.decoder.setJwtValidator(
        new DelegatingOAuth2TokenValidator<Jwt>(
            expiry, new JwtIssuerValidator(ISSUER), this::withinLifetime));
    this.ttl = ttl;
    this.maxLifetime = maxLifetime;
    this.clock = clock;
  }

  /**
   * Refuses a session older than the absolute lifetime even before its own expiry (the lifetime may
   * have been lowered since it was issued).
   */
  private OAuth2TokenValidatorResult withinLifetime(Jwt jwt) {
    return clock.instant().isBefore(started(jwt).plus(maxLifetime))
        ? OAuth2TokenValidatorResult.success()
        : OAuth2TokenValidatorResult.failure(
            new OAuth2Error(
                "invalid_token", "the web session reached its absolute lifetime", null));
  }

  /** The session's start; a session issued before the claim existed counts from its issue. */
  private static Instant started(Jwt jwt) {
    Instant started = jwt.getClaimAsInstant(STARTED);
    return started != null
        ? started
        : jwt.getIssuedAt() != null ? jwt.getIssuedAt() : Instant.EPOCH;
  }

  /** A session for a new visitor. */
  public Issued issue() {
    byte[] id = new byte[12];
    random.nextBytes(id);
    return issue("v-" + HexFormat.of().formatHex(id), clock.instant());
  }

  /**
   * A fresh session for the visitor of a still-valid one, else for a new visitor: renewing keeps
   * the conversation, up to the absolute lifetime from the visitor's first session.
   */
  Issued renew(Optional<String> presented) {
    return presented
        .flatMap(this::valid)
        .map(jwt -> issue(jwt.getSubject(), started(jwt)))
        .orElseGet(this::issue);
  }

  private Optional<Jwt> valid(String token) {
    try {
      return Optional.of(decoder.decode(token));
    } catch (JwtException notOurs) {
      return Optional.empty();
    }
  }

  static Optional<String> cookieOf(HttpServletRequest request) {
    Cookie cookie = WebUtils.getCookie(request, COOKIE);
    return cookie == null || cookie.getValue().isBlank()
        ? Optional.empty()
        : Optional.of(cookie.getValue());
  }

  private Issued issue(String visitorId, Instant started) {
    Instant now = clock.instant();
    Instant end = started.plus(maxLifetime);
    Instant expires = now.plus(ttl).isAfter(end) ? end : now.plus(ttl);
    JwtClaimsSet claims =
        JwtClaimsSet.builder()
            .issuer(ISSUER)
            .subject(visitorId)
            .issuedAt(now)
            .expiresAt(expires)
            .claim(STARTED, started.getEpochSecond())
            .build();
    String token =
        encoder
            .encode(JwtEncoderParameters.from(JwsHeader.with(MacAlgorithm.HS256).build(), claims))
            .getTokenValue();
    return new Issued(token, visitorId, expires, Duration.between(now, expires));
  }

  /** Authenticates a bearer token that is one of our web sessions as its visitor. */
  JwtAuthenticationProvider authenticationProvider() {
    JwtAuthenticationProvider provider = new JwtAuthenticationProvider(decoder);
    provider.setJwtAuthenticationConverter(
        jwt -> new RequesterAuthentication(Requester.visitor(jwt.getSubject())));
    return provider;
  }
}
