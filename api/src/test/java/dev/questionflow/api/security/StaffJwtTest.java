package dev.questionflow.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Staff and admins signed in with an OIDC provider: the tests sign their own JWTs with a local RSA
 * key and serve its JWK set from a local HTTP server, as an identity provider would.
 */
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.security.jwt.role-claim=realm_access.roles", // Keycloak's place for realm roles
      "cs.security.jwt.staff-role=support",
      "cs.security.jwt.admin-role=ops",
      "cs.security.jwt.audience=" + StaffJwtTest.AUDIENCE
    })
@AutoConfigureMockMvc
class StaffJwtTest {

  static final String AUDIENCE = "questionflow-console";
  private static final String ISSUER = "https://idp.example.test/realms/support";
  private static final KeyPair KEYS = rsa();
  private static final KeyPair OTHER_KEYS = rsa();
  private static final AtomicInteger JWKS_FETCHES = new AtomicInteger();
  private static final HttpServer IDP = jwkServer();

  @Autowired MockMvc mvc;

  @DynamicPropertySource
  static void identityProvider(DynamicPropertyRegistry registry) {
    registry.add("cs.security.jwt.issuer-uri", () -> ISSUER);
    registry.add(
        "cs.security.jwt.jwk-set-uri",
        () -> "http://127.0.0.1:" + IDP.getAddress().getPort() + "/protocol/openid-connect/certs");
  }

  @AfterAll
  static void stop() {
    IDP.stop(0);
  }

  private static KeyPair rsa() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static HttpServer jwkServer() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      byte[] jwks =
          new JWKSet(new RSAKey.Builder((RSAPublicKey) KEYS.getPublic()).keyID("k1").build())
              .toString()
              .getBytes(StandardCharsets.UTF_8);
      server.createContext(
          "/protocol/openid-connect/certs",
          exchange -> {
            JWKS_FETCHES.incrementAndGet();
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, jwks.length);
            exchange.getResponseBody().write(jwks);
            exchange.close();
          });
      server.start();
      return server;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String token(KeyPair keys, String issuer, Instant expires, List<String> groups) {
    return token(keys, issuer, AUDIENCE, expires, groups);
  }

  private static String token(
      KeyPair keys, String issuer, String audience, Instant expires, List<String> groups) {
    JwtClaimsSet.Builder claims =
        JwtClaimsSet.builder()
            .issuer(issuer)
            .audience(List.of(audience))
            .subject("0f9c-user")
            .claim("preferred_username", "bob")
            .issuedAt(expires.minus(Duration.ofHours(1)))
            .expiresAt(expires);
    if (groups != null) {
      claims.claim("realm_access", Map.of("roles", groups));
    }
    NimbusJwtEncoder encoder =
        NimbusJwtEncoder.withKeyPair(
                (RSAPublicKey) keys.getPublic(), (RSAPrivateKey) keys.getPrivate())
            .jwkPostProcessor(jwk -> jwk.keyID("k1"))
            .build();
    return encoder
        .encode(
            JwtEncoderParameters.from(
                JwsHeader.with(SignatureAlgorithm.RS256).keyId("k1").build(), claims.build()))
        .getTokenValue();
  }

  private int status(String path, String token) throws Exception {
    return mvc.perform(get(path).header("Authorization", "Bearer " + token))
        .andReturn()
        .getResponse()
        .getStatus();
  }

  private static Instant inAnHour() {
    return Instant.now().plus(Duration.ofHours(1));
  }

  @Test
  void aValidStaffTokenOpensTheTicketsButNotTheAdminApi() throws Exception {
    String staff = token(KEYS, ISSUER, inAnHour(), List.of("support"));
    assertThat(status("/api/v1/tickets", staff)).isEqualTo(200);
    assertThat(status("/api/v1/admin/dead-letters", staff)).isEqualTo(403);
    assertThat(
            mvc.perform(get("/api/v1/me").header("Authorization", "Bearer " + staff))
                .andReturn()
                .getResponse()
                .getContentAsString())
        .contains("\"name\":\"bob\"")
        .contains("\"kind\":\"STAFF\"");
    assertThat(JWKS_FETCHES.get())
        .as("the keys came from the identity provider's JWK set")
        .isPositive();
  }

  @Test
  void anAdminTokenOpensTheAdminApiAndTheActuator() throws Exception {
    String admin = token(KEYS, ISSUER, inAnHour(), List.of("support", "ops"));
    // an unknown question's history: 404 means the admin API let the token through
    assertThat(status("/api/v1/admin/questions/q-" + "0".repeat(32) + "/history", admin))
        .isEqualTo(404);
    assertThat(status("/actuator/prometheus", admin)).isEqualTo(200);
    assertThat(status("/api/v1/tickets", admin)).isEqualTo(200);
  }

  @Test
  void anExpiredTokenIsRefused() throws Exception {
    String expired =
        token(KEYS, ISSUER, Instant.now().minus(Duration.ofMinutes(10)), List.of("support"));
    assertThat(status("/api/v1/tickets", expired)).isEqualTo(401);
  }

  @Test
  void aTokenOfAnotherIssuerIsRefused() throws Exception {
    String foreign = token(KEYS, "https://evil.example.test/", inAnHour(), List.of("support"));
    assertThat(status("/api/v1/tickets", foreign)).isEqualTo(401);
  }

  @Test
  void aTokenForAnotherApplicationOfTheSameProviderIsRefused() throws Exception {
    // another app in the same realm with an "ops" role of its own: its tokens are not for us
    String otherApp = token(KEYS, ISSUER, "wiki", inAnHour(), List.of("support", "ops"));
    assertThat(status("/api/v1/tickets", otherApp)).isEqualTo(401);
  }

  @Test
  void aMistypedKeyIsRefusedWithoutAskingTheIdentityProvider() throws Exception {
    int fetches = JWKS_FETCHES.get();
    assertThat(status("/api/v1/tickets", "not-a-key-0123456789")).isEqualTo(401);
    assertThat(JWKS_FETCHES.get()).isEqualTo(fetches);
  }

  @Test
  void aTokenSignedWithAnotherKeyIsRefused() throws Exception {
    String forged = token(OTHER_KEYS, ISSUER, inAnHour(), List.of("support", "ops"));
    assertThat(status("/api/v1/tickets", forged)).isEqualTo(401);
  }

  @Test
  void aValidTokenWithoutOurRoleMayDoNothing() throws Exception {
    String noRole = token(KEYS, ISSUER, inAnHour(), List.of("marketing"));
    assertThat(status("/api/v1/tickets", noRole)).isEqualTo(403);
    assertThat(status("/api/v1/admin/dead-letters", noRole)).isEqualTo(403);
    assertThat(status("/api/v1/questions/q-" + "0".repeat(32), noRole)).isEqualTo(403);
    String noClaim = token(KEYS, ISSUER, inAnHour(), null);
    assertThat(status("/api/v1/tickets", noClaim)).isEqualTo(403);
  }

  // --- what the configuration must hold (StaffJwt alone, as SecurityConfig builds it at start) ---

  private static String jwkSetUri() {
    return "http://127.0.0.1:" + IDP.getAddress().getPort() + "/protocol/openid-connect/certs";
  }

  private static Requester authenticate(AuthenticationProvider provider, String token) {
    return (Requester)
        provider.authenticate(new BearerTokenAuthenticationToken(token)).getPrincipal();
  }

  @Test
  void withoutAnAudienceTheAppRefusesToStart() {
    SecurityProperties.Jwt noAudience =
        new SecurityProperties.Jwt(ISSUER, jwkSetUri(), null, null, null, null, null);
    assertThatThrownBy(() -> StaffJwt.authenticationProvider(noAudience))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("STAFF_JWT_AUDIENCE")
        .hasMessageContaining("STAFF_JWT_ALLOW_ANY_AUDIENCE=true");
  }

  @Test
  void withOnlyAJwkSetUriTheAppRefusesToStartUntilTheIssuerIsGiven() {
    SecurityProperties.Jwt noIssuer =
        new SecurityProperties.Jwt(null, jwkSetUri(), AUDIENCE, null, null, null, null);
    assertThatThrownBy(() -> StaffJwt.authenticationProvider(noIssuer))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("STAFF_JWT_ISSUER_URI");
    // even with the audience escape: the issuer is never optional
    SecurityProperties.Jwt noIssuerAnyAudience =
        new SecurityProperties.Jwt(null, jwkSetUri(), null, null, null, null, true);
    assertThatThrownBy(() -> StaffJwt.authenticationProvider(noIssuerAnyAudience))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("STAFF_JWT_ISSUER_URI");
  }

  @Test
  void withTheJwkSetUriTheIssuerUriIsTheIssChecked() {
    AuthenticationProvider provider =
        StaffJwt.authenticationProvider(
            new SecurityProperties.Jwt(ISSUER, jwkSetUri(), AUDIENCE, null, null, null, null));
    assertThat(authenticate(provider, token(KEYS, ISSUER, inAnHour(), null)).name())
        .isEqualTo("bob");
    String foreign = token(KEYS, "https://evil.example.test/", inAnHour(), null);
    assertThatThrownBy(() -> authenticate(provider, foreign))
        .isInstanceOf(AuthenticationException.class);
    String otherApp = token(KEYS, ISSUER, "wiki", inAnHour(), null);
    assertThatThrownBy(() -> authenticate(provider, otherApp))
        .isInstanceOf(AuthenticationException.class);
  }

  @Test
  void theExplicitEscapeTakesAnyAudienceAndSaysSoAtStart() {
    Logger logger = (Logger) LoggerFactory.getLogger(StaffJwt.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    try {
      AuthenticationProvider provider =
          StaffJwt.authenticationProvider(
              new SecurityProperties.Jwt(ISSUER, jwkSetUri(), null, null, null, null, true));
      assertThat(authenticate(provider, token(KEYS, ISSUER, "wiki", inAnHour(), null)).name())
          .isEqualTo("bob");
      assertThat(lines.list)
          .anySatisfy(
              line -> {
                assertThat(line.getLevel()).isEqualTo(Level.WARN);
                assertThat(line.getFormattedMessage()).contains("STAFF_JWT_ALLOW_ANY_AUDIENCE");
              });
      // the issuer is still checked
      String foreign = token(KEYS, "https://evil.example.test/", "wiki", inAnHour(), null);
      assertThatThrownBy(() -> authenticate(provider, foreign))
          .isInstanceOf(AuthenticationException.class);
    } finally {
      logger.detachAppender(lines);
    }
  }
}
