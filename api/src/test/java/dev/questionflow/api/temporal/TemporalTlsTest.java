package dev.questionflow.api.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.testing.TestCertificates;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.protobuf.services.HealthStatusManager;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real TLS handshakes against a gRPC server with the Temporal frontend's health service: a private
 * CA and a server name, mutual TLS with a client certificate, and the refusals without them.
 * Certificates are made with openssl for each run.
 */
class TemporalTlsTest {

  private static final String SERVICE = "temporal.api.workflowservice.v1.WorkflowService";
  private static final String NAME = "temporal.internal.test";

  @TempDir static Path dir;
  private Server server;

  @BeforeAll
  static void certificates() throws Exception {
    TestCertificates certificates = TestCertificates.newCa(dir);
    certificates.sign("server", "DNS:" + NAME);
    certificates.sign("client", null);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.shutdownNow();
    }
  }

  @Test
  void aPrivateCaAndTheServerNameMakeTheHandshakeWork() throws Exception {
    int port = start(ClientAuth.NONE);

    assertThat(health(port, new TemporalTls(false, dir.resolve("ca.pem"), null, null, NAME)))
        .isTrue();
    // the system trust store does not know the private CA
    assertThat(health(port, new TemporalTls(true, null, null, null, NAME))).isFalse();
    // the address is not the name in the certificate
    assertThat(health(port, new TemporalTls(false, dir.resolve("ca.pem"), null, null, null)))
        .isFalse();
  }

  @Test
  void mutualTlsNeedsTheClientCertificate() throws Exception {
    int port = start(ClientAuth.REQUIRE);
    Path ca = dir.resolve("ca.pem");

    assertThat(
            health(
                port,
                new TemporalTls(
                    false, ca, dir.resolve("client.pem"), dir.resolve("client.key"), NAME)))
        .isTrue();
    assertThat(health(port, new TemporalTls(false, ca, null, null, NAME))).isFalse();
  }

  @Test
  void nothingSetMeansPlainTextAndACertNeedsItsKey() {
    assertThat(new TemporalTls(false, null, null, null, " ").on()).isFalse();
    assertThatThrownBy(() -> new TemporalTls(false, null, dir.resolve("client.pem"), null, null))
        .hasMessageContaining("TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together");
  }

  private int start(ClientAuth clientAuth) throws IOException {
    HealthStatusManager health = new HealthStatusManager();
    health.setStatus(SERVICE, ServingStatus.SERVING);
    server =
        NettyServerBuilder.forPort(0)
            .sslContext(
                GrpcSslContexts.forServer(
                        dir.resolve("server.pem").toFile(), dir.resolve("server.key").toFile())
                    .trustManager(dir.resolve("ca.pem").toFile())
                    .clientAuth(clientAuth)
                    .build())
            .addService(health.getHealthService())
            .build()
            .start();
    return server.getPort();
  }

  /** True when the frontend's health check answers SERVING over TLS. */
  private static boolean health(int port, TemporalTls tls) {
    WorkflowServiceStubsOptions options =
        tls.apply(WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:" + port))
            .setRpcTimeout(Duration.ofSeconds(5))
            .build();
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(options);
    try {
      return stubs.healthCheck().getStatus() == ServingStatus.SERVING;
    } catch (RuntimeException e) {
      return false;
    } finally {
      stubs.shutdownNow();
    }
  }
}
