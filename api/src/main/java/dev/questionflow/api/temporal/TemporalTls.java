package dev.questionflow.api.temporal;

import dev.questionflow.workflows.connection.FrontendAccess;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * TLS to the Temporal frontend ({@code TEMPORAL_TLS_*}) as the app binds it; what each setting
 * does, and how, is {@link FrontendAccess}'s (shared with {@code bin/replay}).
 *
 * @param enabled {@code TEMPORAL_TLS}: on without any file = the system's trusted CAs
 * @param ca {@code TEMPORAL_TLS_CA}: PEM file of the CA(s) that signed the server's certificate
 * @param cert {@code TEMPORAL_TLS_CERT}: PEM client certificate chain (mTLS), with
 * @param key {@code TEMPORAL_TLS_KEY}: its PKCS#8 PEM private key
 * @param serverName {@code TEMPORAL_TLS_SERVER_NAME}: the name to verify in the server's
 *     certificate
 */
@ConfigurationProperties("cs.temporal-tls")
public record TemporalTls(boolean enabled, Path ca, Path cert, Path key, String serverName) {

  public TemporalTls {
    serverName = serverName == null || serverName.isBlank() ? null : serverName.trim();
    // a certificate without its key is refused at start
    new FrontendAccess(enabled, ca, cert, key, serverName, null);
  }

  /** Any setting given turns TLS on. */
  public boolean on() {
    return access(null).tlsConfigured();
  }

  /** This TLS configuration with the API key (null: none). */
  public FrontendAccess access(String apiKey) {
    return new FrontendAccess(enabled, ca, cert, key, serverName, apiKey);
  }

  /** The stubs' options with this TLS configuration applied. */
  public WorkflowServiceStubsOptions.Builder apply(WorkflowServiceStubsOptions.Builder options) {
    return access(null).apply(options);
  }
}
