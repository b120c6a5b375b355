package dev.questionflow.api.security;

import com.nimbusds.jwt.JWTParser;
import java.text.ParseException;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.jwt.JwtDecoderInitializationException;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/**
 * Hands each bearer token to the one provider that can judge it: an API key to the keys, our web
 * session (by its unverified {@code iss}, which only picks the checker) to the web sessions, any
 * other JWT to the OIDC provider. A ProviderManager would try them in turn, so a mistyped key would
 * reach the identity provider, and its being away would fail the request with a 500.
 */
final class BearerTokenRouter implements AuthenticationManager {

  /**
   * The identity provider could not be asked (discovery or its key set): not the client's fault, so
   * 503.
   */
  static final class IdentityProviderUnavailableException extends AuthenticationException {
    IdentityProviderUnavailableException(Throwable cause) {
      super(
          "the identity provider could not be reached to check this token; try again shortly",
          cause);
    }
  }

  private final AuthenticationProvider apiKeys;
  private final AuthenticationProvider webSessions;
  private final AuthenticationProvider oidc; // null: no OIDC configured

  BearerTokenRouter(
      AuthenticationProvider apiKeys,
      AuthenticationProvider webSessions,
      AuthenticationProvider oidc) {
    this.apiKeys = apiKeys;
    this.webSessions = webSessions;
    this.oidc = oidc;
  }

  @Override
  public Authentication authenticate(Authentication authentication) {
    String token = ((BearerTokenAuthenticationToken) authentication).getToken();
    if (!ApiKeyAuthenticationProvider.looksLikeJwt(token)) {
      return apiKeys.authenticate(authentication);
    }
    if (WebSessions.ISSUER.equals(unverifiedIssuer(token))) {
      return webSessions.authenticate(authentication);
    }
    if (oidc == null) {
      throw new InvalidBearerTokenException("not a token of this service");
    }
    try {
      return oidc.authenticate(authentication);
    } catch (JwtDecoderInitializationException | AuthenticationServiceException e) {
      throw new IdentityProviderUnavailableException(e);
    }
  }

  private static String unverifiedIssuer(String token) {
    try {
      return JWTParser.parse(token).getJWTClaimsSet().getIssuer();
    } catch (ParseException e) {
      throw new InvalidBearerTokenException("malformed token");
    }
  }
}
