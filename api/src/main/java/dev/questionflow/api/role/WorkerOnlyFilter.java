package dev.questionflow.api.role;

import dev.questionflow.api.security.ProblemResponses;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * A {@code worker} instance answers health and metrics only: every other path is a 404 before
 * security or Spring MVC sees it, so no API (questions, tickets, codec, admin) is reachable on it.
 */
final class WorkerOnlyFilter extends OncePerRequestFilter {

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String path = request.getRequestURI().substring(request.getContextPath().length());
    if (path.equals("/actuator") || path.startsWith("/actuator/")) {
      chain.doFilter(request, response);
      return;
    }
    ProblemResponses.write(
        response,
        HttpServletResponse.SC_NOT_FOUND,
        "Not found",
        "this instance runs workers only (CS_ROLE=worker): it serves /actuator; ask an api instance");
  }
}
