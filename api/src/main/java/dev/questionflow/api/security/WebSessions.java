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
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider;
import org.springframework.web.util.WebUtils;

/**
 * Anonymous web sessions of the public chat page: a JWT signed by the server (HMAC-SHA256 with a
 * key derived from the server secret) that names a server-chosen visitor ID and expires. Sent back
 * as an HttpOnly, SameSite=Strict cookie, so the page's EventSource (which cannot set headers)
 * carries it too.
 */
public final class WebSessions {

  public static final String COOKIE = "qf_web";
  static final String ISSUER = "questionflow-web";

  /** A new session: the token (the cookie's value), its visitor and when it expires. */
  public record Issued(String token, String visitorId, Instant expiresAt, Duration ttl) {}

  private final NimbusJwtEncoder encoder;
  private final NimbusJwtDecoder decoder;
  private final Duration ttl;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  WebSessions(ServerSecret secret, Duration ttl, Clock clock) {
    SecretKey key = secret.key("web-session");
    this.encoder = NimbusJwtEncoder.withSecretKey(key).algorithm(MacAlgorithm.HS256).build();
    this.decoder = NimbusJwtDecoder.withSecretKey(key).macAlgorithm(MacAlgorithm.HS256).build();
    this.decoder.setJwtValidator(JwtValidators.createDefaultWithIssuer(ISSUER));
    this.ttl = ttl;
    this.clock = clock;
  }

  /** A session for a new visitor. */
  public Issued issue() {
    byte[] id = new byte[12];
    random.nextBytes(id);
    return issue("v-" + HexFormat.of().formatHex(id));
  }

  /**
   * A fresh session for the visitor of a still-valid one, else for a new visitor: renewing keeps
   * the conversation.
   */
  Issued renew(Optional<String> presented) {
    return presented.flatMap(this::visitorOf).map(this::issue).orElseGet(this::issue);
  }

  private Optional<String> visitorOf(String token) {
    try {
      return Optional.of(decoder.decode(token).getSubject());
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

  private Issued issue(String visitorId) {
    Instant now = clock.instant();
    Instant expires = now.plus(ttl);
    JwtClaimsSet claims =
        JwtClaimsSet.builder()
            .issuer(ISSUER)
            .subject(visitorId)
            .issuedAt(now)
            .expiresAt(expires)
            .build();
    String token =
        encoder
            .encode(JwtEncoderParameters.from(JwsHeader.with(MacAlgorithm.HS256).build(), claims))
            .getTokenValue();
    return new Issued(token, visitorId, expires, ttl);
  }

  /** Authenticates a bearer token that is one of our web sessions as its visitor. */
  JwtAuthenticationProvider authenticationProvider() {
    JwtAuthenticationProvider provider = new JwtAuthenticationProvider(decoder);
    provider.setJwtAuthenticationConverter(
        jwt -> new RequesterAuthentication(Requester.visitor(jwt.getSubject())));
    return provider;
  }
}
