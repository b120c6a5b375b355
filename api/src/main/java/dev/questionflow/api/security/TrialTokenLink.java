package dev.questionflow.api.security;

import dev.questionflow.api.ratelimit.ClientIp;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseCookie;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * Opening a page with the printed {@code ?token=…}: the token becomes an HttpOnly, SameSite=Strict
 * cookie and the answer is a 303 to the same page without it, so it leaves the address bar (and the
 * history, and any Referer). A wrong token gets the same redirect without a cookie. A filter of our
 * own because it answers before any controller (the pages are static files).
 */
final class TrialTokenLink extends OncePerRequestFilter {

  /** The pages; a fixed list, so the redirect can never point anywhere else. */
  private static final Set<String> PAGES = Set.of("/", "/index.html", "/staff", "/staff.html");

  private final TrialToken trial;
  private final ClientIp clientIp;

  TrialTokenLink(TrialToken trial, ClientIp clientIp) {
    this.trial = trial;
    this.clientIp = clientIp;
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    return !"GET".equals(request.getMethod())
        || request.getParameter(TrialToken.PARAMETER) == null
        || !PAGES.contains(request.getRequestURI());
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String presented = request.getParameter(TrialToken.PARAMETER);
    if (trial.matches(presented)) {
      boolean https = clientIp.overHttps(request);
      response.addHeader(
          HttpHeaders.SET_COOKIE,
          ResponseCookie.from(TrialToken.COOKIE, presented.trim())
              .httpOnly(true)
              .secure(https)
              .sameSite("Strict")
              .path("/")
              .build()
              .toString());
      response.addHeader(
          HttpHeaders.SET_COOKIE,
          ResponseCookie.from(TrialToken.MARKER_COOKIE, "1")
              .secure(https)
              .sameSite("Strict")
              .path("/")
              .build()
              .toString());
    }
    String query =
        UriComponentsBuilder.newInstance()
            .query(request.getQueryString())
            .replaceQueryParam(TrialToken.PARAMETER)
            .build()
            .getQuery();
    response.setStatus(HttpServletResponse.SC_SEE_OTHER);
    response.setHeader(HttpHeaders.CACHE_CONTROL, "no-store");
    response.setHeader(
        HttpHeaders.LOCATION,
        request.getRequestURI() + (query == null || query.isEmpty() ? "" : "?" + query));
  }
}
