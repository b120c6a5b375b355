package dev.questionflow.api.temporal;

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
import javax.net.ssl.TrustManagerFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * TLS to the Temporal frontend ({@code TEMPORAL_TLS_*}): server verification against the system
 * trust store or a private CA, client certificates for mTLS, and a server name when the address is
 * not the name in the server's certificate (e.g. an IP or a port forward).
 *
 * <p>Why not the starter's {@code spring.temporal.connection.mtls} properties: they take no CA file
 * and no server name, which is what a self-hosted cluster with its own CA needs; the SDK's {@link
 * SimpleSslContextBuilder} does the rest.
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
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(
          "TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (a client certificate and its key)");
    }
  }

  /** Any setting given turns TLS on. */
  public boolean on() {
    return enabled || ca != null || cert != null || serverName != null;
  }

  /** The stubs' options with this TLS configuration applied. */
  public WorkflowServiceStubsOptions.Builder apply(WorkflowServiceStubsOptions.Builder options) {
    if (!on()) {
      return options;
    }
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
      options.setSslContext(ssl.build());
    } catch (IOException e) {
      throw new UncheckedIOException("TEMPORAL_TLS_*: cannot read " + e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("TEMPORAL_TLS_*: " + e.getMessage(), e);
    }
    if (serverName != null) {
      options.setChannelInitializer(channel -> channel.overrideAuthority(serverName));
    }
    return options;
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
}
