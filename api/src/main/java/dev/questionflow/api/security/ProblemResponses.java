package dev.questionflow.api.security;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.http.MediaType;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;

/**
 * 401 and 403 as problem+json, like every other refusal of the API; {@link #write} for filters that
 * refuse a request before Spring MVC sees it.
 */
public final class ProblemResponses {

  private ProblemResponses() {}

  static AuthenticationEntryPoint unauthorized() {
    return (request, response, exception) -> {
      if (exception instanceof FailedAuthentications.TooManyFailedAuthentications tooMany) {
        // the shape of the other access limits' 429 (AccessLimitExceededException)
        response.setHeader("Retry-After", Long.toString(tooMany.retryAfterSeconds()));
        write(
            response,
            429,
            "Too many requests",
            exception.getMessage(),
            ",\"limit\":\"failed-auth\",\"retryAfterSeconds\":" + tooMany.retryAfterSeconds());
        return;
      }
      if (exception instanceof BearerTokenRouter.IdentityProviderUnavailableException) {
        response.setHeader("Retry-After", "30");
        write(
            response,
            HttpServletResponse.SC_SERVICE_UNAVAILABLE,
            "Identity provider unavailable",
            exception.getMessage());
        return;
      }
      response.setHeader("WWW-Authenticate", "Bearer");
      write(
          response,
          HttpServletResponse.SC_UNAUTHORIZED,
          "Unauthorized",
          "this endpoint needs credentials: Authorization: Bearer <API key or token>"
              + (exception.getMessage() == null ? "" : " (" + exception.getMessage() + ")"));
    };
  }

  static AccessDeniedHandler forbidden() {
    return (request, response, exception) ->
        write(
            response,
            HttpServletResponse.SC_FORBIDDEN,
            "Forbidden",
            "your credentials do not allow this");
  }

  public static void write(HttpServletResponse response, int status, String title, String detail)
      throws IOException {
    write(response, status, title, detail, "");
  }

  /** The same, with further members ({@code ,"name":value...}) after {@code detail}. */
  private static void write(
      HttpServletResponse response, int status, String title, String detail, String members)
      throws IOException {
    response.setStatus(status);
    response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    response
        .getWriter()
        .write(
            "{\"type\":\"about:blank\",\"title\":\""
                + title
                + "\",\"status\":"
                + status
                + ",\"detail\":\""
                + detail.replace("\\", "\\\\").replace("\"", "\\\"")
                + "\""
                + members
                + "}");
  }
}
