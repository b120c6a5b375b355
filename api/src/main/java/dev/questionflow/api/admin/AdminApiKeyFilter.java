package dev.questionflow.api.admin;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The admin API's guard: every request under {@code /api/v1/admin/} needs the {@code X-Api-Key} header with the
 * configured key ({@code ADMIN_API_KEY}), else 401 and nothing runs. With no key configured the admin API is off.
 * A filter and not Spring Security: one static key on one path prefix, and Spring Security would change the
 * defaults (sessions, CSRF, headers) of every other endpoint.
 */
class AdminApiKeyFilter extends OncePerRequestFilter {

  static final String HEADER = "X-Api-Key";
  private static final Logger log = LoggerFactory.getLogger(AdminApiKeyFilter.class);

  private final byte[] key;

  AdminApiKeyFilter(String key) {
    this.key = key == null || key.isBlank() ? null : key.getBytes(StandardCharsets.UTF_8);
    if (this.key == null) {
      log.warn("ADMIN_API_KEY is not set: the admin API (/api/v1/admin) refuses every request");
    }
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String given = request.getHeader(HEADER);
    if (key == null) {
      refuse(response, "the admin API is disabled: set ADMIN_API_KEY to enable it");
    } else if (given == null || given.isEmpty()) {
      refuse(response, "the admin API needs the " + HEADER + " header");
    } else if (!MessageDigest.isEqual(key, given.getBytes(StandardCharsets.UTF_8))) { // constant time
      log.warn("admin API request with a wrong key refused: {} {}", request.getMethod(), request.getRequestURI());
      refuse(response, "wrong " + HEADER);
    } else {
      chain.doFilter(request, response);
    }
  }

  private static void refuse(HttpServletResponse response, String detail) throws IOException {
    response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
    response.setHeader("WWW-Authenticate", "ApiKey header=\"" + HEADER + "\"");
    response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    response.getWriter().write(
        "{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,\"detail\":\"" + detail + "\"}");
  }
}
