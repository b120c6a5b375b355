package dev.questionflow.api.security;

import dev.questionflow.api.ratelimit.ClientIp;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses what a web page on another origin makes a browser send: a request whose {@code
 * Sec-Fetch-Site} is {@code cross-site}, or whose {@code Origin} is not one of the app's own, gets
 * 403 when it would change something (POST, PUT, PATCH, DELETE) or read with a credential the
 * browser adds by itself (a cookie, or the trial token). The app's own origins are {@code
 * cs.security.public-origins}, else the request's own scheme, host and port; compared exactly, so
 * another port on the same host ({@code http://localhost:3000}) is another origin although it is
 * the same site (SameSite cookies go along). Clients that send neither header (curl, back ends)
 * pass.
 *
 * <p>A filter of our own: CSRF tokens do not fit a stateless API whose only browser credentials are
 * cookies set by the server, and Spring Security's CORS support only answers CORS; it never refuses
 * a simple request.
 */
final class CrossSiteRequests {

  /** Methods that change nothing; every other one (POST, PUT, PATCH, DELETE, …) may. */
  private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

  private final List<String> publicOrigins; // empty: the request's own origin
  private final ClientIp clientIp;

  CrossSiteRequests(List<String> publicOrigins, ClientIp clientIp) {
    try {
      this.publicOrigins = publicOrigins.stream().map(CrossSiteRequests::origin).toList();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("PUBLIC_ORIGINS: " + e.getMessage(), e);
    }
    this.clientIp = clientIp;
  }

  /**
   * The filter for one chain; {@code alsoAllowed}: origins let in there besides the app's own (the
   * codec's Web UI origins, which its CORS configuration names).
   */
  Filter filter(List<String> alsoAllowed) {
    List<String> extra = alsoAllowed.stream().map(CrossSiteRequests::asGiven).toList();
    return new OncePerRequestFilter() {
      @Override
      protected void doFilterInternal(
          HttpServletRequest request, HttpServletResponse response, FilterChain chain)
          throws ServletException, IOException {
        if (foreign(request, extra) && (changes(request) || byBrowserCredential(request))) {
          ProblemResponses.write(
              response,
              HttpServletResponse.SC_FORBIDDEN,
              "Cross-site request refused",
              "this request came from a page on another site or origin");
          return;
        }
        chain.doFilter(request, response);
      }
    };
  }

  private boolean foreign(HttpServletRequest request, List<String> extra) {
    String origin = request.getHeader("Origin");
    if (origin != null) {
      String presented = origin.trim().toLowerCase(Locale.ROOT);
      if (extra.contains(presented)) {
        return false; // the codec's configured Web UI: its CORS rules decide
      }
      if (publicOrigins.isEmpty()
          ? !presented.equals(ownOrigin(request))
          : !publicOrigins.contains(presented)) {
        return true;
      }
    }
    return "cross-site".equalsIgnoreCase(request.getHeader("Sec-Fetch-Site"));
  }

  private static boolean changes(HttpServletRequest request) {
    return !SAFE.contains(request.getMethod().toUpperCase(Locale.ROOT));
  }

  /**
   * Authenticated by what a browser adds to a request by itself: a cookie (no Authorization or
   * X-Api-Key header), or the trial token in any form.
   */
  private static boolean byBrowserCredential(HttpServletRequest request) {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    if (authentication == null
        || authentication instanceof AnonymousAuthenticationToken
        || !authentication.isAuthenticated()) {
      return false;
    }
    if (authentication.getPrincipal() instanceof Requester requester
        && requester.kind() == Requester.Kind.LOCAL) {
      return true;
    }
    return request.getHeader("Authorization") == null
        && request.getHeader(SecurityConfig.API_KEY_HEADER) == null;
  }

  /**
   * This request's origin as a browser serializes it: scheme (https also when a trusted proxy says
   * so), host and port from the Host header, the scheme's default port left out.
   */
  private String ownOrigin(HttpServletRequest request) {
    String scheme = clientIp.overHttps(request) ? "https" : "http";
    String host = request.getHeader("Host");
    if (host == null || host.isBlank()) {
      host = request.getServerName() + ":" + request.getServerPort();
    }
    try {
      return origin(scheme + "://" + host.trim());
    } catch (IllegalArgumentException unusableHost) {
      return null; // then no Origin is this request's own
    }
  }

  /** An origin configured elsewhere (the codec's): normalized when it is one, else as given. */
  private static String asGiven(String value) {
    try {
      return origin(value);
    } catch (IllegalArgumentException e) {
      return value.trim().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * {@code scheme://host[:port]} in lower case without a default port; anything else (a path, no
   * host) is refused.
   */
  static String origin(String value) {
    URI uri;
    try {
      uri = URI.create(value.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not an origin (scheme://host[:port]): " + value, e);
    }
    if (uri.getScheme() == null
        || uri.getHost() == null
        || !(uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))
        || uri.getRawQuery() != null
        || uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException("not an origin (scheme://host[:port]): " + value);
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    int port = uri.getPort();
    boolean defaultPort =
        port == -1
            || (scheme.equals("http") && port == 80)
            || (scheme.equals("https") && port == 443);
    return scheme
        + "://"
        + uri.getHost().toLowerCase(Locale.ROOT)
        + (defaultPort ? "" : ":" + port);
  }
}
