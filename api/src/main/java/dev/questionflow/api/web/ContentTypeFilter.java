package dev.questionflow.api.web;

import dev.questionflow.api.security.ProblemResponses;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * A request whose {@code Content-Type} is no media type, or a wildcard such as {@code *}{@code /*},
 * is refused with 415 before anything reads it: Spring's request headers throw on such a value
 * wherever they are first read, which surfaced as a 503 on any endpoint with a body parameter.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 1) // after RequestIdFilter: the refusal carries the request ID
class ContentTypeFilter extends OncePerRequestFilter {

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String given = request.getContentType();
    if (given != null && !given.isBlank() && !concrete(given)) {
      ProblemResponses.write(
          response,
          HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE,
          "Unsupported Media Type",
          "Content-Type must name one media type, such as application/json");
      return;
    }
    chain.doFilter(request, response);
  }

  static boolean concrete(String contentType) {
    try {
      MediaType type = MediaType.parseMediaType(contentType);
      return !type.isWildcardType() && !type.isWildcardSubtype();
    } catch (InvalidMediaTypeException e) {
      return false;
    }
  }
}
