package dev.questionflow.workflows.connection;

import io.temporal.serviceclient.SimpleSslContextBuilder;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.function.Function;
import javax.net.ssl.TrustManagerFactory;

/**
 * How a client reaches the Temporal frontend beyond its address: TLS ({@code TEMPORAL_TLS_*}) and
 * an API key ({@code TEMPORAL_API_KEY}, Temporal Cloud's or a self-hosted authorizer's). One home
 * for the app's stubs and {@code bin/replay}, so both reach the same servers the same way.
 *
 * <p>Why not the starter's {@code spring.temporal.connection.mtls} properties: they take no CA file
 * and no server name, which is what a self-hosted cluster with its own CA needs; the SDK's {@link
 * SimpleSslContextBuilder} does the rest.
 *
 * @param tls {@code TEMPORAL_TLS}: on without any file = the system's trusted CAs
 * @param ca {@code TEMPORAL_TLS_CA}: PEM file of the CA(s) that signed the server's certificate
 * @param cert {@code TEMPORAL_TLS_CERT}: PEM client certificate chain (mTLS), with
 * @param key {@code TEMPORAL_TLS_KEY}: its PKCS#8 PEM private key
 * @param serverName {@code TEMPORAL_TLS_SERVER_NAME}: the name to verify in the server's
 *     certificate (when the address is an IP or a port forward)
 * @param apiKey {@code TEMPORAL_API_KEY}: sent as a bearer token on every call; it travels only
 *     over TLS, so it turns TLS on (the system's CAs) when no other setting does
 */
public record FrontendAccess(
    boolean tls, Path ca, Path cert, Path key, String serverName, String apiKey) {

  public FrontendAccess {
    serverName = blankToNull(serverName);
    apiKey = blankToNull(apiKey);
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(
          "TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (a client certificate and its key)");
    }
  }

  /** From environment variables named as above ({@code System::getenv} for a CLI). */
  public static FrontendAccess fromEnvironment(Function<String, String> env) {
    return new FrontendAccess(
        Boolean.parseBoolean(blankToNull(env.apply("TEMPORAL_TLS"))),
        path(env.apply("TEMPORAL_TLS_CA")),
        path(env.apply("TEMPORAL_TLS_CERT")),
        path(env.apply("TEMPORAL_TLS_KEY")),
        env.apply("TEMPORAL_TLS_SERVER_NAME"),
        env.apply("TEMPORAL_API_KEY"));
  }

  /** Whether any TLS setting is given (the API key alone turns TLS on too: see {@link #apply}). */
  public boolean tlsConfigured() {
    return tls || ca != null || cert != null || serverName != null;
  }

  /** The stubs' options with TLS and the API key applied. */
  public WorkflowServiceStubsOptions.Builder apply(WorkflowServiceStubsOptions.Builder options) {
    if (tlsConfigured()) {
      options.setSslContext(sslContext());
      if (serverName != null) {
        options.setChannelInitializer(channel -> channel.overrideAuthority(serverName));
      }
    } else if (apiKey != null) {
      options.setEnableHttps(true);
    }
    if (apiKey != null) {
      String bearer = apiKey;
      options.addApiKey(() -> bearer);
    }
    return options;
  }

  private io.grpc.netty.shaded.io.netty.handler.ssl.SslContext sslContext() {
    try {
      SimpleSslContextBuilder ssl;
      if (cert != null) {
        // read now: the builder reads its streams only when it builds
        ssl =
            SimpleSslContextBuilder.forPKCS8(
                new ByteArrayInputStream(Files.readAllBytes(cert)),
                new ByteArrayInputStream(Files.readAllBytes(key)));
      } else {
        ssl = SimpleSslContextBuilder.noKeyOrCertChain();
      }
      if (ca != null) {
        ssl.setTrustManager(trustManagerFactory(ca).getTrustManagers()[0]);
      }
      return ssl.build();
    } catch (IOException e) {
      throw new UncheckedIOException("TEMPORAL_TLS_*: cannot read " + e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("TEMPORAL_TLS_*: " + e.getMessage(), e);
    }
  }

  private static TrustManagerFactory trustManagerFactory(Path caFile)
      throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    try (InputStream in = Files.newInputStream(caFile)) {
      int i = 0;
      for (Certificate certificate :
          CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + i++, certificate);
      }
      if (i == 0) {
        throw new GeneralSecurityException("no certificate in " + caFile);
      }
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return factory;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }

  private static Path path(String value) {
    String v = blankToNull(value);
    return v == null ? null : Path.of(v);
  }

  @Override
  public String toString() {
    return "FrontendAccess[tls="
        + (tlsConfigured() || apiKey != null)
        + ", apiKey="
        + (apiKey != null ? "set" : "none") // never the key
        + "]";
  }
}
