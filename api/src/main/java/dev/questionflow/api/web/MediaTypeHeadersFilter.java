package dev.questionflow.api.web;

import dev.questionflow.api.security.ProblemResponses;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The media type headers are checked before anything reads them:
 *
 * <ul>
 *   <li>a {@code Content-Type} that is no media type, or a wildcard such as {@code *}{@code /*}, is
 *       a 415: Spring's request headers throw on such a value wherever they are first read, which
 *       surfaced as a 503 on any endpoint with a body parameter;
 *   <li>an {@code Accept} that lists no media types ({@code *}{@code /*;q=x}, bytes that are no
 *       type) is a 406: Spring found no type to write its refusal in and answered with an empty
 *       body.
 * </ul>
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 1) // after RequestIdFilter: the refusal carries the request ID
class MediaTypeHeadersFilter extends OncePerRequestFilter {

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
    for (String accept : Collections.list(request.getHeaders(HttpHeaders.ACCEPT))) {
      if (!accept.isBlank() && !mediaTypes(accept)) {
        ProblemResponses.write(
            response,
            HttpServletResponse.SC_NOT_ACCEPTABLE,
            "Not Acceptable",
            "Accept must list media types, such as application/json");
        return;
      }
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

  static boolean mediaTypes(String accept) {
    try {
      return !MediaType.parseMediaTypes(accept).isEmpty();
    } catch (InvalidMediaTypeException e) {
      return false;
    }
  }
}
