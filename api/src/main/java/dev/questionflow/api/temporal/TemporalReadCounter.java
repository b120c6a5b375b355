package dev.questionflow.api.temporal;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;

/**
 * Counts the app's read requests to the Temporal frontend ({@code
 * cs_temporal_reads_total{method}}): descriptions, histories and queries, what status reads and
 * streams cost the server. A gRPC client interceptor on the service stubs, so every read of every
 * caller in this process is counted, the SDK's workers' history fetches (a sticky-cache miss)
 * included: an instance of role {@code api} runs no worker, so there the count is what status reads
 * cost.
 */
public final class TemporalReadCounter implements ClientInterceptor {

  /** The counted methods of {@code temporal.api.workflowservice.v1.WorkflowService}, by label. */
  static final Map<String, String> READS =
      Map.of(
          "DescribeWorkflowExecution", "describe",
          "GetWorkflowExecutionHistory", "history",
          "GetWorkflowExecutionHistoryReverse", "history_reverse",
          "QueryWorkflow", "query");

  private final Map<String, Counter> counters;

  public TemporalReadCounter(MeterRegistry meters) {
    this.counters =
        Map.copyOf(
            READS.entrySet().stream()
                .collect(
                    java.util.stream.Collectors.toMap(
                        Map.Entry::getKey,
                        e ->
                            Counter.builder("cs_temporal_reads_total")
                                .description(
                                    "Read requests of this process to the Temporal frontend"
                                        + " (describe, history, query)")
                                .tag("method", e.getValue())
                                .register(meters))));
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions callOptions, Channel next) {
    Counter counter = counters.get(method.getBareMethodName());
    if (counter != null
        && "temporal.api.workflowservice.v1.WorkflowService".equals(service(method))) {
      counter.increment();
    }
    return next.newCall(method, callOptions);
  }

  private static String service(MethodDescriptor<?, ?> method) {
    return MethodDescriptor.extractFullServiceName(method.getFullMethodName());
  }
}
