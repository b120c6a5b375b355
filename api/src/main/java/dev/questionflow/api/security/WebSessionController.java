package dev.questionflow.api.security;

import dev.questionflow.api.ratelimit.ClientIp;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.security.SecurityRequirements;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Instant;
import java.util.List;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseCookie;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The chat page's anonymous web session, and "who am I" for every signed-in caller (the staff
 * console's sign-in).
 */
@Tag(
    name = "web session",
    description = "The chat page's anonymous session, and who the credentials are")
@RestController
class WebSessionController {

  static final String PATH = "/api/v1/web-session";

  record WebSession(String visitorId, Instant expiresAt) {}

  record Me(String name, Requester.Kind kind, List<String> roles) {}

  private final WebSessions sessions;
  private final ClientIp clientIp;

  WebSessionController(WebSessions sessions, ClientIp clientIp) {
    this.sessions = sessions;
    this.clientIp = clientIp;
  }

  @Operation(
      summary =
          "An anonymous web session for the public chat page (a signed, expiring cookie; STANDARD tier);"
              + " presenting a still-valid one renews it for the same visitor")
  @SecurityRequirements // none: this is how the chat page gets its credentials
  @PostMapping(PATH)
  ResponseEntity<WebSession> start(HttpServletRequest request) {
    WebSessions.Issued issued = sessions.renew(WebSessions.cookieOf(request));
    ResponseCookie cookie =
        ResponseCookie.from(WebSessions.COOKIE, issued.token())
            .httpOnly(true)
            .secure(
                clientIp.overHttps(
                    request)) // behind a TLS-ending proxy: from TRUSTED_PROXIES' X-Forwarded-Proto
            .sameSite("Strict")
            .path("/")
            .maxAge(issued.ttl())
            .build();
    return ResponseEntity.ok()
        .header(HttpHeaders.SET_COOKIE, cookie.toString())
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .body(new WebSession(issued.visitorId(), issued.expiresAt()));
  }

  @Operation(summary = "Who the credentials of this request belong to")
  @GetMapping("/api/v1/me")
  Me me(Authentication authentication) {
    Requester requester = Requester.current();
    return new Me(
        requester.name(),
        requester.kind(),
        authentication.getAuthorities().stream().map(GrantedAuthority::getAuthority).toList());
  }
}
