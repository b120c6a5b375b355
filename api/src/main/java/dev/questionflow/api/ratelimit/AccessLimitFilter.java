package dev.questionflow.api.ratelimit;

import dev.questionflow.api.security.Requester;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.util.UrlPathHelper;

/**
 * Every API request, reads and event streams included, takes a token of its caller's bucket (a back
 * end, staff member or admin) or its visitor's, and on the public web page (visitors and the
 * anonymous web-session call) one of its address's; a request to Temporal's codec takes one of its
 * requester's codec bucket. Runs in Spring Security's chain after authorization, so refused
 * credentials cost nothing here.
 */
public final class AccessLimitFilter extends OncePerRequestFilter {

  private final AccessLimiter limiter;
  private final ClientIp clientIp;
  private final HandlerExceptionResolver errors;

  public AccessLimitFilter(
      AccessLimiter limiter, ClientIp clientIp, HandlerExceptionResolver errors) {
    this.limiter = limiter;
    this.clientIp = clientIp;
    this.errors = errors;
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    return !isApi(request) && !isCodec(request);
  }

  /** Temporal's codec: limited per requester (staff or admin), with a bucket of its own. */
  static boolean isCodec(HttpServletRequest request) {
    return UrlPathHelper.defaultInstance.getPathWithinApplication(request).startsWith("/codec/");
  }

  /**
   * The decoded path, as Spring Security and MVC match it: on the raw URI, {@code
   * /%61pi/v1/questions} would be routed to the API and skip the limits.
   */
  public static boolean isApi(HttpServletRequest request) {
    return UrlPathHelper.defaultInstance.getPathWithinApplication(request).startsWith("/api/");
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    try {
      if (isCodec(request)) {
        // authorization let only staff and admins (or trial mode's local) this far
        if (authentication != null
            && authentication.getPrincipal() instanceof Requester requester) {
          limiter.admitRequest(AccessLimiter.Kind.CODEC, requester.limitKey(), null);
        }
      } else if (authentication != null
          && authentication.getPrincipal() instanceof Requester requester) {
        boolean visitor = requester.kind() == Requester.Kind.WEB_VISITOR;
        limiter.admitRequest(
            visitor ? AccessLimiter.Kind.VISITOR : AccessLimiter.Kind.CALLER,
            requester.limitKey(),
            visitor ? clientIp.of(request) : null);
      } else {
        limiter.admitRequest(
            AccessLimiter.Kind.IP, null, clientIp.of(request)); // anonymous: the web-session call
      }
    } catch (AccessLimitExceededException e) {
      errors.resolveException(
          request, response, null, e); // the app's problem+json with Retry-After
      return;
    }
    chain.doFilter(request, response);
  }
}
