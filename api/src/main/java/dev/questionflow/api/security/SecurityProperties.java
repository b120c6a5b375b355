package dev.questionflow.api.security;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Who may call the service, bound from {@code cs.security} (environment names in application.yml).
 *
 * @param callerApiKeys chat back ends: comma-separated {@code name:key} or {@code name:key:VIP}
 *     ({@code CALLER_API_KEYS})
 * @param staffApiKeys support staff, same format ({@code STAFF_API_KEYS})
 * @param adminApiKey the admin key ({@code ADMIN_API_KEY})
 * @param metricsApiKey Prometheus's key ({@code METRICS_API_KEY}): reads {@code
 *     /actuator/prometheus} and nothing else
 * @param jwt staff and admin sign-in with bearer JWTs from the organisation's OIDC provider
 * @param workflowIdSecret key of the workflow-ID HMAC and of the web sessions' signatures ({@code
 *     WORKFLOW_ID_SECRET}); blank = generated once and kept in {@code dataDir}
 * @param dataDir where a generated secret is kept ({@code DATA_DIR}, default {@code data})
 * @param webSessionTtl how long an anonymous web session of the chat page lasts
 * @param trustedProxies addresses or CIDR ranges of the proxies whose X-Forwarded-For is believed
 *     ({@code TRUSTED_PROXIES})
 * @param publicOrigins the origins the app's pages are served from ({@code PUBLIC_ORIGINS}, e.g.
 *     {@code https://chat.example.com}); empty = each request's own scheme, host and port. A
 *     browser request from any other origin may not change anything (403).
 */
@ConfigurationProperties("cs.security")
public record SecurityProperties(
    String callerApiKeys,
    String staffApiKeys,
    String adminApiKey,
    String metricsApiKey,
    Jwt jwt,
    String workflowIdSecret,
    Path dataDir,
    Duration webSessionTtl,
    List<String> trustedProxies,
    List<String> publicOrigins) {

  /**
   * @param issuerUri the OIDC issuer ({@code STAFF_JWT_ISSUER_URI}): tokens must carry it as {@code
   *     iss}; its JWK set is found by discovery unless {@code jwkSetUri} is set
   * @param jwkSetUri where the signing keys are ({@code STAFF_JWT_JWK_SET_URI}); the issuer URI is
   *     still needed, for the {@code iss} check
   * @param audience the {@code aud} our tokens carry ({@code STAFF_JWT_AUDIENCE}): this service's
   *     client ID at the provider
   * @param roleClaim the claim holding the roles ({@code STAFF_JWT_ROLE_CLAIM}, default {@code
   *     roles}); a string or a list
   * @param staffRole the claim value that makes a staff member ({@code STAFF_JWT_STAFF_ROLE},
   *     default {@code staff})
   * @param adminRole the claim value that makes an admin ({@code STAFF_JWT_ADMIN_ROLE}, default
   *     {@code admin})
   * @param allowAnyAudience {@code STAFF_JWT_ALLOW_ANY_AUDIENCE}: true takes tokens of every
   *     application of the provider, on purpose (a WARN at start); else an audience is required
   */
  public record Jwt(
      String issuerUri,
      String jwkSetUri,
      String audience,
      String roleClaim,
      String staffRole,
      String adminRole,
      Boolean allowAnyAudience) {

    public Jwt {
      allowAnyAudience = allowAnyAudience != null && allowAnyAudience;
    }

    public boolean configured() {
      return !blank(issuerUri) || !blank(jwkSetUri);
    }
  }

  public SecurityProperties {
    jwt = jwt == null ? new Jwt(null, null, null, null, null, null, null) : jwt;
    dataDir = dataDir == null ? Path.of("data") : dataDir;
    webSessionTtl = webSessionTtl == null ? Duration.ofHours(12) : webSessionTtl;
    trustedProxies =
        trustedProxies == null
            ? List.of()
            : trustedProxies.stream().filter(p -> !blank(p)).toList();
    publicOrigins =
        publicOrigins == null
            ? List.of()
            : publicOrigins.stream().filter(o -> !blank(o)).map(String::trim).toList();
  }

  /**
   * True when any credential is configured: then nobody is let in without one. The metrics key does
   * not count: it grants no use of the service, so alone it leaves trial mode on.
   */
  public boolean anyCredentialConfigured() {
    return !blank(callerApiKeys) || !blank(staffApiKeys) || !blank(adminApiKey) || jwt.configured();
  }

  static boolean blank(String value) {
    return value == null || value.isBlank();
  }
}
