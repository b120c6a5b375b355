package dev.questionflow.api.security;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.web.util.WebUtils;

/**
 * Trial mode's credential: a random token made at each start, printed once in a ready-to-open URL
 * (as notebook servers do) and written to {@code <data dir>/trial-token} (owner-only). Whoever
 * presents it, as {@code Authorization: Bearer} or as the cookie that opening the URL sets, is the
 * requester {@code local} (every role); nothing else is, whatever address or Host header a request
 * has: a forwarder on this machine (a tunnel, {@code proxy_pass http://127.0.0.1:8080}) relays
 * loopback connections, so the peer address proves nothing.
 *
 * <p>{@link #OFF} when trial mode is off: it matches no token.
 */
public final class TrialToken implements ApplicationListener<WebServerInitializedEvent> {

  private static final Logger log = LoggerFactory.getLogger(TrialToken.class);

  /**
   * The cookie that opening {@code /?token=…} sets; the console and chat page send it by itself.
   */
  public static final String COOKIE = "qf_trial";

  /**
   * Not a credential: tells the staff console (which cannot read the HttpOnly cookie) that asking
   * {@code /api/v1/me} with cookies is worth a try.
   */
  public static final String MARKER_COOKIE = "qf_trial_signin";

  /** The query parameter of the printed URL. */
  public static final String PARAMETER = "token";

  static final String FILE = "trial-token";

  static final TrialToken OFF = new TrialToken(null, null, null);

  private final byte[] token; // null: trial mode off
  private final Path file;
  private final String urlHost;

  private TrialToken(byte[] token, Path file, String urlHost) {
    this.token = token;
    this.file = file;
    this.urlHost = urlHost;
  }

  /**
   * A fresh token for this start, written to {@code <dataDir>/trial-token} (replacing the last
   * start's).
   *
   * @param serverAddress the bind address, for the printed URL's host
   */
  static TrialToken create(Path dataDir, String serverAddress) {
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    String value = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    Path file = dataDir.resolve(FILE).toAbsolutePath();
    try {
      write(file, value);
    } catch (IOException | RuntimeException e) {
      log.warn(
          "could not write the trial token to {}: {} (the printed URL still has it)",
          file,
          e.toString());
    }
    return new TrialToken(value.getBytes(StandardCharsets.US_ASCII), file, urlHost(serverAddress));
  }

  /**
   * Owner-only from its first byte: written to a temporary file with mode 600, then moved over the
   * last start's (a rename replaces a symlink there rather than writing through it).
   */
  private static void write(Path file, String value) throws IOException {
    Files.createDirectories(file.getParent());
    Path temporary = Files.createTempFile(file.getParent(), "trial-token", ".tmp");
    try {
      try {
        Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        log.debug("no POSIX permissions on this file system: {}", e.toString());
      }
      Files.writeString(temporary, value + "\n");
      try {
        Files.move(
            temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  private static String urlHost(String serverAddress) {
    if (serverAddress == null
        || serverAddress.isBlank()
        || serverAddress.equals("127.0.0.1")
        || serverAddress.equals("::1")
        || serverAddress.equals("[::1]")
        || serverAddress.equalsIgnoreCase("localhost")) {
      return "localhost";
    }
    return serverAddress.contains(":") && !serverAddress.startsWith("[")
        ? "[" + serverAddress + "]"
        : serverAddress;
  }

  /** The token itself (tests present it as bin/run's users do). */
  String value() {
    return token == null ? null : new String(token, StandardCharsets.US_ASCII);
  }

  public boolean enabled() {
    return token != null;
  }

  /** Whether {@code presented} is this start's token (in constant time). */
  public boolean matches(String presented) {
    return token != null
        && presented != null
        && MessageDigest.isEqual(token, presented.trim().getBytes(StandardCharsets.US_ASCII));
  }

  /** The trial cookie of the request when it holds this start's token (a stale one counts not). */
  Optional<String> validCookie(HttpServletRequest request) {
    if (token == null) {
      return Optional.empty();
    }
    Cookie cookie = WebUtils.getCookie(request, COOKIE);
    return cookie != null && matches(cookie.getValue())
        ? Optional.of(cookie.getValue())
        : Optional.empty();
  }

  /**
   * The token checked before the other bearer-token checkers: it is {@code local}; anything else
   * goes on to them.
   */
  AuthenticationManager before(AuthenticationManager next) {
    if (token == null) {
      return next;
    }
    return authentication ->
        authentication instanceof BearerTokenAuthenticationToken bearer
                && matches(bearer.getToken())
            ? new RequesterAuthentication(Requester.local())
            : next.authenticate(authentication);
  }

  /** Prints the URL once, when the port is known. */
  @Override
  public void onApplicationEvent(WebServerInitializedEvent event) {
    if (token == null || "management".equals(event.getApplicationContext().getServerNamespace())) {
      return;
    }
    String value = new String(token, StandardCharsets.US_ASCII);
    log.warn(
        "TRIAL MODE: open http://{}:{}/?{}={} (staff console: /staff?{}={}); API clients send"
            + " Authorization: Bearer $(cat {}). A new token at every start.",
        urlHost,
        event.getWebServer().getPort(),
        PARAMETER,
        value,
        PARAMETER,
        value,
        file);
  }
}
