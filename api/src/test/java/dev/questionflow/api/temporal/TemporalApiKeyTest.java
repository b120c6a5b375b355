package dev.questionflow.api.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.testing.TestCertificates;
import dev.questionflow.workflows.SearchAttributes;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.StreamObserver;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.AddSearchAttributesResponse;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesResponse;
import io.temporal.api.operatorservice.v1.OperatorServiceGrpc;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * TEMPORAL_API_KEY against a local TLS gRPC endpoint that records every call's metadata, as
 * Temporal Cloud would see it: the key goes on every call, the search-attribute registrar's
 * operator calls included; a server that refuses to add attributes leaves readiness DOWN, naming
 * them.
 */
class TemporalApiKeyTest {

  private static final String NAME = "temporal.internal.test";
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  @TempDir static Path dir;
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private Server server;

  @BeforeAll
  static void certificates() throws Exception {
    TestCertificates.newCa(dir).sign("server", "DNS:" + NAME);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.shutdownNow();
    }
  }

  @Test
  void theKeyGoesOnEveryCallAndMissingAttributesKeepReadinessDown() throws Exception {
    int port = start();
    TemporalTls tls = new TemporalTls(false, dir.resolve("ca.pem"), null, null, NAME);
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            new TemporalApiKey("cloud-key-123")
                .apply(
                    tls.apply(
                        WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:" + port)),
                    tls)
                .setRpcTimeout(Duration.ofSeconds(5))
                .build());
    try {
      assertThat(stubs.healthCheck().getStatus()).isEqualTo(ServingStatus.SERVING);
      SearchAttributeRegistrar registrar =
          new SearchAttributeRegistrar(
              stubs,
              new DefaultListableBeanFactory().getBeanProvider(TestWorkflowEnvironment.class),
              "cloud-namespace");
      registrar.afterSingletonsInstantiated();

      assertThat(calls)
          .as("every call, with the authorization it carried")
          .anySatisfy(c -> assertThat(c).startsWith("grpc.health.v1.Health/"))
          .anySatisfy(
              c -> assertThat(c).startsWith(OperatorServiceGrpc.SERVICE_NAME + "/ListSearch"))
          .anySatisfy(
              c -> assertThat(c).startsWith(OperatorServiceGrpc.SERVICE_NAME + "/AddSearch"))
          .allSatisfy(c -> assertThat(c).endsWith(" Bearer cloud-key-123"));
      assertThat(registrar.missing())
          .containsExactlyInAnyOrderElementsOf(
              SearchAttributes.ALL.stream().map(k -> k.getName()).toList());
      var health =
          SearchAttributeRegistrar.searchAttributesHealthIndicator(
                  new DefaultListableBeanFactory() {
                    {
                      registerSingleton("registrar", registrar);
                    }
                  }.getBeanProvider(SearchAttributeRegistrar.class))
              .health();
      assertThat(health.getStatus())
          .isEqualTo(org.springframework.boot.health.contributor.Status.DOWN);
      assertThat(health.getDetails().get("missing").toString()).contains("Stage");
    } finally {
      stubs.shutdownNow();
    }
  }

  private int start() throws Exception {
    HealthStatusManager health = new HealthStatusManager();
    health.setStatus("temporal.api.workflowservice.v1.WorkflowService", ServingStatus.SERVING);
    OperatorServiceGrpc.OperatorServiceImplBase operator =
        new OperatorServiceGrpc.OperatorServiceImplBase() {
          @Override
          public void listSearchAttributes(
              ListSearchAttributesRequest request,
              StreamObserver<ListSearchAttributesResponse> response) {
            response.onNext(ListSearchAttributesResponse.getDefaultInstance());
            response.onCompleted();
          }

          @Override
          public void addSearchAttributes(
              AddSearchAttributesRequest request,
              StreamObserver<AddSearchAttributesResponse> response) {
            response.onError(
                Status.PERMISSION_DENIED
                    .withDescription("managed by the cloud's own tools")
                    .asRuntimeException());
          }
        };
    ServerInterceptor recorder =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            calls.add(
                call.getMethodDescriptor().getFullMethodName() + " " + headers.get(AUTHORIZATION));
            return next.startCall(call, headers);
          }
        };
    server =
        NettyServerBuilder.forPort(0)
            .sslContext(
                GrpcSslContexts.forServer(
                        dir.resolve("server.pem").toFile(), dir.resolve("server.key").toFile())
                    .build())
            .addService(ServerInterceptors.intercept(health.getHealthService(), recorder))
            .addService(ServerInterceptors.intercept(operator, recorder))
            .build()
            .start();
    return server.getPort();
  }
}
