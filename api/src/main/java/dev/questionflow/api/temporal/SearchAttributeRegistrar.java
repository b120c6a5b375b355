package dev.questionflow.api.temporal;

import dev.questionflow.workflows.SearchAttributes;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.common.SearchAttributeKey;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

/**
 * Registers the custom search attributes at start-up when the server lacks them, so a fresh dev
 * server needs no manual step. Runs before the workers start (they start on ApplicationReadyEvent).
 */
@Component
class SearchAttributeRegistrar implements SmartInitializingSingleton {

  private static final Logger log = LoggerFactory.getLogger(SearchAttributeRegistrar.class);

  private final WorkflowServiceStubs stubs;
  private final ObjectProvider<TestWorkflowEnvironment> testEnvironment;
  private final String namespace;

  /** The attributes the namespace lacks and the server did not let this instance add. */
  private volatile Set<String> unregistered = Set.of();

  SearchAttributeRegistrar(
      @Qualifier("temporalWorkflowServiceStubs") WorkflowServiceStubs stubs,
      @Qualifier("temporalTestWorkflowEnvironment")
          ObjectProvider<TestWorkflowEnvironment> testEnvironment,
      @Value("${spring.temporal.namespace:default}") String namespace) {
    this.stubs = stubs;
    this.testEnvironment = testEnvironment;
    this.namespace = namespace;
  }

  @Override
  public void afterSingletonsInstantiated() {
    Map<String, IndexedValueType> wanted = new LinkedHashMap<>();
    for (SearchAttributeKey<?> key : SearchAttributes.ALL) {
      wanted.put(key.getName(), key.getValueType());
    }
    TestWorkflowEnvironment embedded = testEnvironment.getIfAvailable();
    if (embedded != null) {
      wanted.forEach(embedded::registerSearchAttribute);
      log.info(
          "registered search attributes {} on the in-process Temporal server", wanted.keySet());
      return;
    }
    // the stubs' own options (API key, interceptors) over their connection: the raw channel alone
    // carries no API key
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder()
                .setChannel(stubs.getRawChannel())
                .setGrpcMetadataProviders(stubs.getOptions().getGrpcMetadataProviders())
                .setGrpcClientInterceptors(stubs.getOptions().getGrpcClientInterceptors())
                .validateAndBuildWithDefaults());
    try {
      Set<String> existing =
          operator
              .blockingStub()
              .listSearchAttributes(
                  ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build())
              .getCustomAttributesMap()
              .keySet();
      Map<String, IndexedValueType> missing = new LinkedHashMap<>(wanted);
      missing.keySet().removeAll(existing);
      if (missing.isEmpty()) {
        log.info(
            "search attributes {} already registered in namespace {}", wanted.keySet(), namespace);
        return;
      }
      try {
        operator
            .blockingStub()
            .addSearchAttributes(
                AddSearchAttributesRequest.newBuilder()
                    .setNamespace(namespace)
                    .putAllSearchAttributes(missing)
                    .build());
        log.info("registered search attributes {} in namespace {}", missing.keySet(), namespace);
      } catch (StatusRuntimeException e) {
        // Temporal Cloud manages a namespace's attributes with its own tools (tcld, the UI): every
        // upsert of a missing one would fail, so the instance is not ready until they exist
        unregistered = Set.copyOf(missing.keySet());
        log.error(
            "search attributes {} are missing in namespace {} and the server did not let this"
                + " instance add them ({}): add them with the server's tools; readiness is DOWN"
                + " until then",
            missing.keySet(),
            namespace,
            e.getStatus().getCode());
      }
    } finally {
      operator.shutdown();
    }
  }

  /** The custom search attributes the namespace lacks and this instance could not add. */
  Set<String> missing() {
    return unregistered;
  }

  /** Readiness: DOWN, naming them, while attributes every question upserts are missing. */
  @Bean
  static HealthIndicator searchAttributesHealthIndicator(
      ObjectProvider<SearchAttributeRegistrar> registrar) {
    return () -> {
      SearchAttributeRegistrar r = registrar.getIfAvailable();
      Set<String> absent = r == null ? Set.of() : r.missing();
      return absent.isEmpty()
          ? Health.up().build()
          : Health.down()
              .withDetail("missing", new java.util.TreeSet<>(absent))
              .withDetail(
                  "fix",
                  "add them to the namespace with the server's tools (tcld, temporal operator)")
              .build();
    };
  }
}
