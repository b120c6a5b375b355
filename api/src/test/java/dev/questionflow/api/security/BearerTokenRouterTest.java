package dev.questionflow.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/**
 * Each token goes to its own checker, and an identity provider that is away is a 503, not a 500 or
 * a 401.
 */
class BearerTokenRouterTest {

  private static final String ISSUER = "https://idp.example.test/realms/support";

  private final AtomicInteger oidcCalls = new AtomicInteger();
  private final WebSessions sessions =
      new WebSessions(
          ServerSecret.of("router-test-secret-0123456789", null),
          Duration.ofHours(1),
          Duration.ofHours(24),
          Clock.systemUTC());
  private final AuthenticationProvider apiKeys =
      new ApiKeyAuthenticationProvider(
          ApiKeys.parse("CALLER_API_KEYS", "webchat:router-key-0123456789-abcdef0123456789"),
          ApiKeys.parse("STAFF_API_KEYS", ""),
          ApiKeys.single("ADMIN_API_KEY", "admin", ""),
          ApiKeys.single("METRICS_API_KEY", "prometheus", ""));

  /** An OIDC provider whose key set is on a port nobody listens on. */
  private AuthenticationProvider unreachableIdentityProvider() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    AuthenticationProvider real =
        StaffJwt.authenticationProvider(
            new SecurityProperties.Jwt(
                ISSUER,
                "http://127.0.0.1:" + closedPort + "/certs",
                "questionflow",
                null,
                null,
                null,
                null));
    return new AuthenticationProvider() {
      @Override
      public Authentication authenticate(Authentication authentication) {
        oidcCalls.incrementAndGet();
        return real.authenticate(authentication);
      }

      @Override
      public boolean supports(Class<?> authentication) {
        return real.supports(authentication);
      }
    };
  }

  private static Authentication bearer(String token) {
    return new BearerTokenAuthenticationToken(token);
  }

  private static String idpToken() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    var keys = generator.generateKeyPair();
    NimbusJwtEncoder encoder =
        NimbusJwtEncoder.withKeyPair(
                (RSAPublicKey) keys.getPublic(), (RSAPrivateKey) keys.getPrivate())
            .build();
    JwtClaimsSet claims =
        JwtClaimsSet.builder()
            .issuer(ISSUER)
            .subject("bob")
            .audience(java.util.List.of("questionflow"))
            .expiresAt(Instant.now().plusSeconds(600))
            .build();
    return encoder
        .encode(JwtEncoderParameters.from(JwsHeader.with(SignatureAlgorithm.RS256).build(), claims))
        .getTokenValue();
  }

  @Test
  void eachKindOfTokenReachesOnlyItsOwnChecker() throws Exception {
    BearerTokenRouter router =
        new BearerTokenRouter(
            apiKeys, sessions.authenticationProvider(), unreachableIdentityProvider());

    assertThat(
            ((Requester)
                    router
                        .authenticate(bearer("router-key-0123456789-abcdef0123456789"))
                        .getPrincipal())
                .name())
        .isEqualTo("webchat");
    assertThatThrownBy(() -> router.authenticate(bearer("mistyped-key-0123456789")))
        .isInstanceOf(BadCredentialsException.class);
    WebSessions.Issued session = sessions.issue();
    assertThat(
            ((Requester) router.authenticate(bearer(session.token())).getPrincipal()).visitorId())
        .isEqualTo(session.visitorId());
    assertThatThrownBy(() -> router.authenticate(bearer("a.b.c")))
        .isInstanceOf(InvalidBearerTokenException.class);
    assertThat(oidcCalls)
        .as("neither keys nor our sessions went to the identity provider")
        .hasValue(0);
  }

  @Test
  void anIdentityProviderThatIsAwayMakesA503WithRetryAfter() throws Exception {
    BearerTokenRouter router =
        new BearerTokenRouter(
            apiKeys, sessions.authenticationProvider(), unreachableIdentityProvider());
    String token = idpToken();

    var failure =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            BearerTokenRouter.IdentityProviderUnavailableException.class,
            () -> router.authenticate(bearer(token)));
    assertThat(failure).isNotNull();
    MockHttpServletResponse response = new MockHttpServletResponse();
    ProblemResponses.unauthorized().commence(new MockHttpServletRequest(), response, failure);
    assertThat(response.getStatus()).isEqualTo(503);
    assertThat(response.getHeader("Retry-After")).isEqualTo("30");
    assertThat(response.getContentAsString()).contains("identity provider");
  }

  @Test
  void withoutOidcAForeignJwtIsSimplyNotOurs() throws Exception {
    BearerTokenRouter router =
        new BearerTokenRouter(apiKeys, sessions.authenticationProvider(), null);
    assertThatThrownBy(() -> router.authenticate(bearer(idpToken())))
        .isInstanceOf(InvalidBearerTokenException.class);
  }
}
