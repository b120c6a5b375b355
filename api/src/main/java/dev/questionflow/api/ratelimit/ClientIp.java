package dev.questionflow.api.ratelimit;

import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.security.web.util.matcher.IpAddressMatcher;

/**
 * The client address a per-IP limit counts: the socket's peer, unless that peer is one of the
 * configured proxies ({@code TRUSTED_PROXIES}, addresses or CIDR ranges); then X-Forwarded-For is
 * read from the right, skipping trusted proxies, and the right-most untrusted hop is the client.
 * Entries left of it are whatever the caller wrote, so trusting them would let a script pick a
 * fresh IP per request.
 */
public final class ClientIp {

  static final String FORWARDED_FOR = "X-Forwarded-For";
  private static final Pattern ADDRESS = Pattern.compile("[0-9A-Fa-f.:\\[\\]]{2,64}");

  private final List<IpAddressMatcher> trusted;

  public ClientIp(List<String> trustedProxies) {
    this.trusted = trustedProxies.stream().map(String::trim).map(IpAddressMatcher::new).toList();
  }

  public String of(HttpServletRequest request) {
    String remote = request.getRemoteAddr();
    if (remote == null || remote.isBlank()) {
      return "unknown";
    }
    if (!isTrusted(remote)) {
      return remote;
    }
    String header = request.getHeader(FORWARDED_FOR);
    if (header == null || header.isBlank()) {
      return remote;
    }
    String[] hops = header.split(",");
    String client = remote;
    for (int i = hops.length - 1; i >= 0; i--) {
      String hop = hops[i].trim();
      if (!ADDRESS.matcher(hop).matches()) {
        return client; // garbage from the left: the last good hop is the client
      }
      client = hop;
      if (!isTrusted(hop)) {
        return hop;
      }
    }
    return client;
  }

  /**
   * Whether the request reached us over HTTPS: itself, or as a trusted proxy's {@code
   * X-Forwarded-Proto} says.
   */
  public boolean overHttps(HttpServletRequest request) {
    return request.isSecure()
        || (request.getRemoteAddr() != null
            && isTrusted(request.getRemoteAddr())
            && "https".equalsIgnoreCase(request.getHeader("X-Forwarded-Proto")));
  }

  private boolean isTrusted(String address) {
    for (IpAddressMatcher matcher : trusted) {
      try {
        if (matcher.matches(address)) {
          return true;
        }
      } catch (IllegalArgumentException e) {
        return false; // not an address at all
      }
    }
    return false;
  }
}
