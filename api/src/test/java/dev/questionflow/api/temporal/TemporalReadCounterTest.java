package dev.questionflow.api.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.MethodDescriptor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import org.junit.jupiter.api.Test;

class TemporalReadCounterTest {

  /** A channel that opens no call: the interceptor only counts and passes on. */
  private static final Channel NOWHERE =
      new Channel() {
        @Override
        public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
          return null;
        }

        @Override
        public String authority() {
          return "nowhere";
        }
      };

  @Test
  void countsDescribeHistoryAndQueryByMethodAndNothingElse() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    TemporalReadCounter counter = new TemporalReadCounter(meters);

    counter.interceptCall(
        WorkflowServiceGrpc.getDescribeWorkflowExecutionMethod(), CallOptions.DEFAULT, NOWHERE);
    counter.interceptCall(
        WorkflowServiceGrpc.getDescribeWorkflowExecutionMethod(), CallOptions.DEFAULT, NOWHERE);
    counter.interceptCall(
        WorkflowServiceGrpc.getGetWorkflowExecutionHistoryMethod(), CallOptions.DEFAULT, NOWHERE);
    counter.interceptCall(
        WorkflowServiceGrpc.getQueryWorkflowMethod(), CallOptions.DEFAULT, NOWHERE);
    counter.interceptCall(
        WorkflowServiceGrpc.getStartWorkflowExecutionMethod(), CallOptions.DEFAULT, NOWHERE);
    counter.interceptCall(
        WorkflowServiceGrpc.getPollWorkflowTaskQueueMethod(), CallOptions.DEFAULT, NOWHERE);

    assertThat(count(meters, "describe")).isEqualTo(2);
    assertThat(count(meters, "history")).isEqualTo(1);
    assertThat(count(meters, "query")).isEqualTo(1);
    // a start and a poll are no reads
    assertThat(
            meters.find("cs_temporal_reads_total").counters().stream()
                .mapToDouble(c -> c.count())
                .sum())
        .isEqualTo(4);
  }

  private static double count(SimpleMeterRegistry meters, String method) {
    return meters.get("cs_temporal_reads_total").tag("method", method).counter().count();
  }
}
