package dev.questionflow.api.temporal;

import dev.questionflow.workflows.connection.FrontendAccess;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * An API key for the Temporal frontend ({@code TEMPORAL_API_KEY}: Temporal Cloud's, or a
 * self-hosted server's authorizer's), sent as a bearer token on every call of every stub built from
 * these options, the operator stubs of {@link SearchAttributeRegistrar} included. A key travels
 * only over TLS: without any {@code TEMPORAL_TLS_*} setting it turns TLS on with the system's CAs.
 *
 * @param apiKey the key; blank = none
 */
@ConfigurationProperties("cs.temporal")
public record TemporalApiKey(String apiKey) {

  public TemporalApiKey {
    apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.strip();
  }

  public boolean present() {
    return apiKey != null;
  }

  /** The stubs' options with TLS and the key applied ({@link FrontendAccess}). */
  public WorkflowServiceStubsOptions.Builder apply(
      WorkflowServiceStubsOptions.Builder options, TemporalTls tls) {
    return tls.access(apiKey).apply(options);
  }

  @Override
  public String toString() {
    return "TemporalApiKey[" + (present() ? "set" : "none") + "]"; // never the key
  }
}
