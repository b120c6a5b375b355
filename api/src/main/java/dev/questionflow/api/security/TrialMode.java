package dev.questionflow.api.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The zero-install trial: with no credential configured the service binds to 127.0.0.1, and a request without
 * credentials from loopback is the caller {@code local} (staff and admin too). Any configured key or token issuer,
 * or a non-loopback {@code SERVER_ADDRESS}, turns it off.
 *
 * <p>A filter of our own because Spring Security authenticates by credentials, not by the peer's address; it runs
 * after the bearer-token filter and only fills an empty security context.
 */
public final class TrialMode extends OncePerRequestFilter {

  private static final RequesterAuthentication LOCAL = new RequesterAuthentication(Requester.local());

  /** Trial mode as decided from the environment before start-up: the bind address to default to. */
  public static Map<String, Object> defaultsFor(Map<String, String> env) {
    boolean keys = java.util.stream.Stream.of(
            "CALLER_API_KEYS", "STAFF_API_KEYS", "ADMIN_API_KEY", "STAFF_JWT_ISSUER_URI", "STAFF_JWT_JWK_SET_URI")
        .anyMatch(name -> env.get(name) != null && !env.get(name).isBlank());
    String address = env.get("SERVER_ADDRESS");
    return keys || (address != null && !address.isBlank()) ? Map.of() : Map.of("server.address", "127.0.0.1");
  }

  /**
   * On when no credential is configured and the server does not listen on a non-loopback address (unset means the
   * default bind; even then only requests from loopback are let in, so the relaxation never reaches beyond it).
   */
  static boolean on(SecurityProperties properties, String serverAddress) {
    return !properties.anyCredentialConfigured()
        && (serverAddress == null || serverAddress.isBlank() || isLoopback(serverAddress));
  }

  static boolean isLoopback(String address) {
    try {
      return InetAddress.getByName(address).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (SecurityContextHolder.getContext().getAuthentication() == null && isLoopback(request.getRemoteAddr())) {
      SecurityContextHolder.getContext().setAuthentication(LOCAL);
    }
    chain.doFilter(request, response);
  }
}
