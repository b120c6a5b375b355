package dev.questionflow.api.ratelimit;

import jakarta.servlet.http.HttpServletRequest;
import java.util.regex.Pattern;

/** The client address a per-IP limit counts: the socket's peer, or the proxy's X-Forwarded-For entry if trusted. */
final class ClientIp {

  static final String FORWARDED_FOR = "X-Forwarded-For";
  private static final Pattern ADDRESS = Pattern.compile("[0-9A-Fa-f.:\\[\\]]{2,64}");

  private ClientIp() {}

  /**
   * With {@code trustForwardedFor}, the LAST entry of X-Forwarded-For: the address the proxy in front of the app saw
   * (earlier entries are whatever the caller sent, so trusting them would let a script pick a fresh IP per request).
   */
  static String of(HttpServletRequest request, boolean trustForwardedFor) {
    if (trustForwardedFor) {
      String forwarded = lastForwarded(request.getHeader(FORWARDED_FOR));
      if (forwarded != null) {
        return forwarded;
      }
    }
    String remote = request.getRemoteAddr();
    return remote == null || remote.isBlank() ? "unknown" : remote;
  }

  static String lastForwarded(String header) {
    if (header == null || header.isBlank()) {
      return null;
    }
    String[] entries = header.split(",");
    for (int i = entries.length - 1; i >= 0; i--) {
      String entry = entries[i].trim();
      if (!entry.isEmpty()) {
        return ADDRESS.matcher(entry).matches() ? entry : null;
      }
    }
    return null;
  }
}
