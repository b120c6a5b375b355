package dev.questionflow.api.security;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtDecoders;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.SupplierJwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider;

/**
 * Staff and admins signed in with the organisation's OIDC provider: bearer JWTs checked by Spring
 * Security's resource-server support (signature from the JWK set, expiry, issuer, audience), the
 * role from a configurable claim. Issuer and audience are required (the audience can be waived
 * explicitly).
 */
final class StaffJwt {

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(StaffJwt.class);

  private StaffJwt() {}

  static JwtAuthenticationProvider authenticationProvider(SecurityProperties.Jwt config) {
    requireIssuerAndAudience(config);
    JwtAuthenticationProvider provider = new JwtAuthenticationProvider(decoder(config));
    String roleClaim = orDefault(config.roleClaim(), "roles");
    String staffRole = orDefault(config.staffRole(), "staff");
    String adminRole = orDefault(config.adminRole(), "admin");
    provider.setJwtAuthenticationConverter(
        jwt -> {
          Collection<String> roles = roles(jwt, roleClaim);
          String name = name(jwt);
          Requester requester;
          if (roles.contains(adminRole)) {
            requester = Requester.admin(name);
          } else if (roles.contains(staffRole)) {
            requester = Requester.staff(name);
          } else {
            requester =
                Requester.withoutRole(name); // signed in, but may do nothing here: 403, not 401
          }
          return new RequesterAuthentication(requester);
        });
    return provider;
  }

  /**
   * Without the issuer, {@code iss} is not checked (a JWK set may sign for several issuers: realms,
   * tenants); without the audience, a token the provider issued to any other application is taken.
   * Both stop the start, unless the audience is waived on purpose.
   */
  private static void requireIssuerAndAudience(SecurityProperties.Jwt config) {
    if (SecurityProperties.blank(config.issuerUri())) {
      throw new IllegalStateException(
          "STAFF_JWT_JWK_SET_URI is set without STAFF_JWT_ISSUER_URI: set the issuer URI too (the"
              + " `iss` value of the provider's tokens, e.g. https://idp.example.com/realms/support), so"
              + " that tokens of other issuers signed with the same keys are refused");
    }
    if (SecurityProperties.blank(config.audience()) && !config.allowAnyAudience()) {
      throw new IllegalStateException(
          "STAFF_JWT_AUDIENCE is not set: set it to this service's client ID at the identity"
              + " provider, or set STAFF_JWT_ALLOW_ANY_AUDIENCE=true to take the tokens of every"
              + " application of that provider on purpose");
    }
  }

  private static JwtDecoder decoder(SecurityProperties.Jwt config) {
    String issuer = config.issuerUri();
    OAuth2TokenValidator<Jwt> validator = validator(config);
    if (!SecurityProperties.blank(config.jwkSetUri())) {
      NimbusJwtDecoder decoder = NimbusJwtDecoder.withJwkSetUri(config.jwkSetUri()).build();
      decoder.setJwtValidator(validator);
      return decoder;
    }
    // discovery at the first token, not at start-up: the app must start while the identity provider
    // is away
    return new SupplierJwtDecoder(
        () -> {
          NimbusJwtDecoder decoder = (NimbusJwtDecoder) JwtDecoders.fromIssuerLocation(issuer);
          decoder.setJwtValidator(validator);
          return decoder;
        });
  }

  /** Expiry, not-before and the issuer; the audience unless waived (a WARN). */
  private static OAuth2TokenValidator<Jwt> validator(SecurityProperties.Jwt config) {
    List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
    validators.add(JwtValidators.createDefaultWithIssuer(config.issuerUri().trim()));
    if (!SecurityProperties.blank(config.audience())) {
      String audience = config.audience().trim();
      validators.add(
          new JwtClaimValidator<List<String>>(
              JwtClaimNames.AUD, aud -> aud != null && aud.contains(audience)));
    } else {
      log.warn(
          "STAFF_JWT_ALLOW_ANY_AUDIENCE=true and no STAFF_JWT_AUDIENCE: tokens that {} issued to any"
              + " application are taken; set STAFF_JWT_AUDIENCE to this service's client ID",
          config.issuerUri());
    }
    return new DelegatingOAuth2TokenValidator<>(validators);
  }

  /**
   * The claim's roles: a list or a space/comma-separated string; a dotted name reaches into
   * objects.
   */
  private static Collection<String> roles(Jwt jwt, String claim) {
    // a dotted name such as Keycloak's realm_access.roles walks into nested objects
    Object value = jwt.getClaims();
    for (String part : claim.split("\\.")) {
      value = value instanceof Map<?, ?> object ? object.get(part) : null;
    }
    if (value instanceof Collection<?> list) {
      return list.stream().map(String::valueOf).toList();
    }
    if (value instanceof String text) {
      return List.of(text.split("[ ,]+"));
    }
    return List.of();
  }

  private static String name(Jwt jwt) {
    String preferred = jwt.getClaimAsString("preferred_username");
    return preferred != null && !preferred.isBlank() ? preferred : jwt.getSubject();
  }

  private static String orDefault(String value, String fallback) {
    return SecurityProperties.blank(value) ? fallback : value.trim();
  }
}
