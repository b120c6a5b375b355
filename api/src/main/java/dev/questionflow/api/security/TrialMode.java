package dev.questionflow.api.security;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;

/**
 * The zero-install trial: with no credential configured the service binds to 127.0.0.1, and the
 * per-start {@link TrialToken} makes its holder the caller {@code local} (staff and admin too). Any
 * configured key or token issuer, or a non-loopback {@code SERVER_ADDRESS}, turns it off; the
 * metrics key ({@code METRICS_API_KEY}) does not, as it grants no use of the service.
 */
public final class TrialMode {

  private TrialMode() {}

  /**
   * Trial mode as decided from the environment before start-up (environment variables, {@code
   * configtree:} files, any property source): the bind address to default to.
   */
  public static Map<String, Object> defaultsFor(java.util.function.UnaryOperator<String> setting) {
    boolean keys =
        java.util.stream.Stream.of(
                "CALLER_API_KEYS",
                "STAFF_API_KEYS",
                "ADMIN_API_KEY",
                "STAFF_JWT_ISSUER_URI",
                "STAFF_JWT_JWK_SET_URI")
            .map(setting)
            .anyMatch(value -> value != null && !value.isBlank());
    String address = setting.apply("SERVER_ADDRESS");
    return keys || (address != null && !address.isBlank())
        ? Map.of()
        : Map.of("server.address", "127.0.0.1");
  }

  /**
   * On when no credential is configured and the server does not listen on a non-loopback address
   * (unset means the default bind).
   */
  static boolean on(SecurityProperties properties, String serverAddress) {
    return !properties.anyCredentialConfigured()
        && (serverAddress == null || serverAddress.isBlank() || isLoopback(serverAddress));
  }

  static boolean isLoopback(String address) {
    try {
      return InetAddress.getByName(address).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
