package dev.questionflow.api.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.testing.TestCertificates;
import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.replay.ReplayCli;
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
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoResponse;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
  private static final String RUN_ID = "7d1c1a52-0000-4000-8000-000000000001";

  /** The workflows module's golden histories (tests run in the module's directory). */
  private static final Path GOLDEN =
      Path.of("..", "workflows", "src", "test", "resources", "golden");

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

  @Test
  void replayFetchesWithTheKeyOverTls() throws Exception {
    WorkflowExecutionHistory golden =
        WorkflowExecutionHistory.fromJson(
            Files.readString(GOLDEN.resolve("rag.json")), "q-replayed");
    int port = start(golden);
    Map<String, String> env =
        Map.of(
            "TEMPORAL_ADDRESS",
            "127.0.0.1:" + port,
            "TEMPORAL_NAMESPACE",
            "cloud-namespace",
            "TEMPORAL_TLS_CA",
            dir.resolve("ca.pem").toString(),
            "TEMPORAL_TLS_SERVER_NAME",
            NAME,
            "TEMPORAL_API_KEY",
            "cloud-key-123");
    ByteArrayOutputStream output = new ByteArrayOutputStream();

    int exit =
        ReplayCli.run(
            new String[] {"q-replayed"},
            env::get,
            new PrintStream(output, true, StandardCharsets.UTF_8));

    assertThat(exit).as(output.toString(StandardCharsets.UTF_8) + calls).isZero();
    assertThat(output.toString(StandardCharsets.UTF_8))
        .contains("namespace cloud-namespace, TLS, API key")
        .contains("OK q-replayed");
    assertThat(calls)
        .as("bin/replay's calls, with the authorization each carried")
        .anySatisfy(c -> assertThat(c).contains("/GetSystemInfo "))
        .anySatisfy(c -> assertThat(c).contains("/DescribeWorkflowExecution "))
        .anySatisfy(c -> assertThat(c).contains("/GetWorkflowExecutionHistory "))
        .allSatisfy(c -> assertThat(c).endsWith(" Bearer cloud-key-123"));
  }

  private int start() throws Exception {
    return start(null);
  }

  /** The endpoint; it serves this history as any workflow's, when given. */
  private int start(WorkflowExecutionHistory history) throws Exception {
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
    var builder = NettyServerBuilder.forPort(0);
    if (history != null) {
      builder.addService(ServerInterceptors.intercept(serving(history), recorder));
    }
    server =
        builder
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

  private static WorkflowServiceGrpc.WorkflowServiceImplBase serving(
      WorkflowExecutionHistory history) {
    return new WorkflowServiceGrpc.WorkflowServiceImplBase() {
      @Override
      public void getSystemInfo(
          GetSystemInfoRequest request, StreamObserver<GetSystemInfoResponse> response) {
        response.onNext(GetSystemInfoResponse.getDefaultInstance());
        response.onCompleted();
      }

      @Override
      public void describeWorkflowExecution(
          DescribeWorkflowExecutionRequest request,
          StreamObserver<DescribeWorkflowExecutionResponse> response) {
        response.onNext(
            DescribeWorkflowExecutionResponse.newBuilder()
                .setWorkflowExecutionInfo(
                    WorkflowExecutionInfo.newBuilder()
                        .setExecution(request.getExecution().toBuilder().setRunId(RUN_ID)))
                .build());
        response.onCompleted();
      }

      @Override
      public void getWorkflowExecutionHistory(
          GetWorkflowExecutionHistoryRequest request,
          StreamObserver<GetWorkflowExecutionHistoryResponse> response) {
        response.onNext(
            GetWorkflowExecutionHistoryResponse.newBuilder()
                .setHistory(history.getHistory())
                .build());
        response.onCompleted();
      }
    };
  }
}
