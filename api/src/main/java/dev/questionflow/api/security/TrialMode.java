package dev.questionflow.api.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The zero-install trial: with no credential configured the service binds to 127.0.0.1, and a
 * request without credentials from this machine (see {@link #fromThisMachine}) is the caller {@code
 * local} (staff and admin too). Any configured key or token issuer, or a non-loopback {@code
 * SERVER_ADDRESS}, turns it off.
 *
 * <p>A filter of our own because Spring Security authenticates by credentials, not by the peer's
 * address; it runs after the bearer-token filter and only fills an empty security context.
 */
public final class TrialMode extends OncePerRequestFilter {

  private static final RequesterAuthentication LOCAL =
      new RequesterAuthentication(Requester.local());
  private static final Set<String> LOCAL_HOST_NAMES =
      Set.of("localhost", "127.0.0.1", "[::1]", "::1");
  private static final List<String> RELAY_HEADERS =
      List.of("Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Real-IP", "Via");

  /** Trial mode as decided from the environment before start-up: the bind address to default to. */
  public static Map<String, Object> defaultsFor(Map<String, String> env) {
    boolean keys =
        java.util.stream.Stream.of(
                "CALLER_API_KEYS",
                "STAFF_API_KEYS",
                "ADMIN_API_KEY",
                "STAFF_JWT_ISSUER_URI",
                "STAFF_JWT_JWK_SET_URI")
            .anyMatch(name -> env.get(name) != null && !env.get(name).isBlank());
    String address = env.get("SERVER_ADDRESS");
    return keys || (address != null && !address.isBlank())
        ? Map.of()
        : Map.of("server.address", "127.0.0.1");
  }

  /**
   * On when no credential is configured and the server does not listen on a non-loopback address
   * (unset means the default bind; even then only requests from loopback are let in, so the
   * relaxation never reaches beyond it).
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

  /**
   * From loopback, addressed to a loopback name, and not relayed: a same-host proxy or tunnel
   * (which adds forwarding headers) and a web page rebinding its own host name to 127.0.0.1 (whose
   * Host header is that name) stay out.
   */
  static boolean fromThisMachine(HttpServletRequest request) {
    return isLoopback(request.getRemoteAddr())
        && LOCAL_HOST_NAMES.contains(request.getServerName().toLowerCase(Locale.ROOT))
        && RELAY_HEADERS.stream().noneMatch(header -> request.getHeader(header) != null);
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (SecurityContextHolder.getContext().getAuthentication() == null
        && fromThisMachine(request)) {
      SecurityContextHolder.getContext().setAuthentication(LOCAL);
    }
    chain.doFilter(request, response);
  }
}
