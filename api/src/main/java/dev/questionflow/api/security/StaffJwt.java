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
 * Security's resource-server support (signature from the JWK set, expiry, issuer), the role from a
 * configurable claim.
 */
final class StaffJwt {

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(StaffJwt.class);

  private StaffJwt() {}

  static JwtAuthenticationProvider authenticationProvider(SecurityProperties.Jwt config) {
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

  /** Expiry and not-before always; the issuer and the audience when configured. */
  private static OAuth2TokenValidator<Jwt> validator(SecurityProperties.Jwt config) {
    List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
    validators.add(
        SecurityProperties.blank(config.issuerUri())
            ? JwtValidators.createDefault()
            : JwtValidators.createDefaultWithIssuer(config.issuerUri()));
    if (!SecurityProperties.blank(config.audience())) {
      String audience = config.audience().trim();
      validators.add(
          new JwtClaimValidator<List<String>>(
              JwtClaimNames.AUD, aud -> aud != null && aud.contains(audience)));
    } else {
      log.warn(
          "STAFF_JWT_AUDIENCE is not set: tokens of every application of this identity provider are taken;"
              + " set it to this service's client ID");
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
