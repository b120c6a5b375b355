package dev.questionflow.api.security;

import java.util.Collection;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.AuthorityUtils;

/**
 * An authenticated {@link Requester}, whichever way it proved who it is (API key, JWT, web session,
 * trial).
 */
final class RequesterAuthentication extends AbstractAuthenticationToken {

  private final Requester requester;

  RequesterAuthentication(Requester requester) {
    super(authorities(requester));
    this.requester = requester;
    setAuthenticated(true);
  }

  private static Collection<? extends GrantedAuthority> authorities(Requester requester) {
    return AuthorityUtils.createAuthorityList(requester.kind().roles());
  }

  @Override
  public Object getCredentials() {
    return "";
  }

  @Override
  public Requester getPrincipal() {
    return requester;
  }

  @Override
  public String getName() {
    return requester.name();
  }
}
