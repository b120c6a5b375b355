package dev.questionflow.api.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.MDC;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Every request gets a request ID: the caller's {@code X-Request-Id} when it is a plain token, else
 * a new one. It is in the MDC (so on every log line written while serving the request), echoed in
 * the response header, and carried into the question's workflow and activities by {@code
 * RequestIdPropagator}.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RequestIdFilter extends OncePerRequestFilter {

  public static final String HEADER = "X-Request-Id";

  /** The MDC key, also the JSON log field. */
  public static final String MDC_KEY = "requestId";

  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

  /** The current request's ID (set by this filter; generated if called outside a request). */
  public static String current() {
    String id = MDC.get(MDC_KEY);
    return id == null ? UUID.randomUUID().toString() : id;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String given = request.getHeader(HEADER);
    String id =
        given != null && SAFE.matcher(given).matches() ? given : UUID.randomUUID().toString();
    MDC.put(MDC_KEY, id);
    response.setHeader(HEADER, id);
    try {
      chain.doFilter(request, response);
    } finally {
      MDC.remove(MDC_KEY);
    }
  }
}
