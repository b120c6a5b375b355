package dev.questionflow.api.security;

import java.util.Optional;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/**
 * Bearer tokens that are API keys: chat back ends ({@code CALLER_API_KEYS}), staff ({@code
 * STAFF_API_KEYS}), the admin ({@code ADMIN_API_KEY}) and Prometheus ({@code METRICS_API_KEY}). A
 * token shaped like a JWT is left to the JWT providers behind this one.
 */
final class ApiKeyAuthenticationProvider implements AuthenticationProvider {

  private final ApiKeys callers;
  private final ApiKeys staff;
  private final ApiKeys admins;
  private final ApiKeys metrics;

  /**
   * @throws IllegalArgumentException when one key is configured twice (its role would depend on the
   *     order here)
   */
  ApiKeyAuthenticationProvider(ApiKeys callers, ApiKeys staff, ApiKeys admins, ApiKeys metrics) {
    ApiKeys.requireDistinct(callers, staff, admins, metrics);
    this.callers = callers;
    this.staff = staff;
    this.admins = admins;
    this.metrics = metrics;
  }

  @Override
  public Authentication authenticate(Authentication authentication) {
    String token = ((BearerTokenAuthenticationToken) authentication).getToken();
    if (looksLikeJwt(token)) {
      return null; // not ours: the next provider decides
    }
    Optional<ApiKeys.Entry> admin = admins.match(token);
    if (admin.isPresent()) {
      return new RequesterAuthentication(Requester.admin(admin.get().name()));
    }
    Optional<ApiKeys.Entry> member = staff.match(token);
    if (member.isPresent()) {
      return new RequesterAuthentication(Requester.staff(member.get().name()));
    }
    Optional<ApiKeys.Entry> caller = callers.match(token);
    if (caller.isPresent()) {
      return new RequesterAuthentication(
          Requester.backend(caller.get().name(), caller.get().maxTier()));
    }
    Optional<ApiKeys.Entry> scraper = metrics.match(token);
    if (scraper.isPresent()) {
      return new RequesterAuthentication(Requester.metrics(scraper.get().name()));
    }
    throw new BadCredentialsException("unknown API key");
  }

  static boolean looksLikeJwt(String token) {
    return token.chars().filter(c -> c == '.').count() == 2;
  }

  @Override
  public boolean supports(Class<?> authentication) {
    return BearerTokenAuthenticationToken.class.isAssignableFrom(authentication);
  }
}
