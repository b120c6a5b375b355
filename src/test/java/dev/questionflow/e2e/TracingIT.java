package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.e2e.OtlpReceiver.Span;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Traces on (TRACING_ENABLED=true), exported to a real OpenTelemetry Collector process ({@link
 * OtelCollector}) that forwards them to an OTLP receiver in the test: one question answered by the
 * model is one trace, HTTP accept > StartWorkflow > RunWorkflow > activity > the model's HTTP call,
 * with its Redis commands in it, and its log lines carry the trace's ID.
 */
class TracingIT {

  private static FakeModelServer model;
  private static OtlpReceiver otlp;
  private static OtelCollector collector;
  private static AppProcess app;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.script(call -> Reply.text("Your new card is on its way."));
    otlp = OtlpReceiver.start();
    // the app exports to a real Collector, which forwards to the receiver the test reads
    collector = OtelCollector.start(otlp.endpoint());
    app =
        AppProcess.start(
            "tracing",
            Map.of(
                "TASK_QUEUE",
                Infra.uniqueTaskQueue("tracing"),
                "LLM_BASE_URL",
                model.baseUrl(),
                "LLM_API_KEY",
                "test-key",
                "LLM_MODEL",
                "fake-qwen",
                "TRACING_ENABLED",
                "true",
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                collector.endpoint(),
                // the default batches spans for 5 s
                "MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_SCHEDULEDELAY",
                "200ms"));
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(app, collector, otlp, model);
  }

  @Test
  void oneQuestionIsOneTraceFromTheAcceptToTheModelCallAndRedis() throws Exception {
    String workflowId =
        app.ask(
                "trace-" + java.util.UUID.randomUUID(),
                "m1",
                "I still have not received my new card")
            .get("workflowId")
            .asText();
    assertThat(app.awaitStage(workflowId, "ANSWERED", Duration.ofSeconds(60)).at("/answer/level"))
        .hasToString("\"RAG\"");

    List<Span> trace = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              List<Span> spans = otlp.spans();
              Set<String> questionTraces =
                  spans.stream()
                      .filter(s -> s.name().equals("RunWorkflow:QuestionWorkflow"))
                      .filter(s -> !s.traceId().equals(CALLER_TRACE)) // the other test's
                      .map(Span::traceId)
                      .collect(Collectors.toSet());
              assertThat(questionTraces).as("traces with the question's workflow").hasSize(1);
              String traceId = questionTraces.iterator().next();
              trace.clear();
              spans.stream().filter(s -> s.traceId().equals(traceId)).forEach(trace::add);
              assertThat(trace)
                  .as("the model call's span")
                  .anyMatch(s -> s.kind().equals("SPAN_KIND_CLIENT") && isModelCall(s));
              assertThat(trace).as("Redis spans").anyMatch(s -> s.scope().contains("redis"));
            });
    trace.forEach(s -> System.out.printf("[trace] %s%n", s));

    Map<String, Span> byId = trace.stream().collect(Collectors.toMap(Span::spanId, s -> s));
    Span root = trace.stream().filter(s -> s.parentId().isEmpty()).findFirst().orElseThrow();
    assertThat(root.kind()).isEqualTo("SPAN_KIND_SERVER");
    assertThat(root.name()).containsIgnoringCase("post").contains("/api/v1/questions");

    Span modelCall = trace.stream().filter(TracingIT::isModelCall).findFirst().orElseThrow();
    List<String> chain = ancestors(modelCall, byId, Span::name);
    // the model call under its activity, under the workflow, under the start, under the accept
    assertThat(chain.get(0)).startsWith("RunActivity:");
    assertThat(chain)
        .containsSubsequence(
            "RunWorkflow:QuestionWorkflow", "StartWorkflow:QuestionWorkflow", root.name());
    // the model itself got the trace: its request's traceparent names the trace and the call's span
    assertThat(model.calls())
        .as("model calls")
        .anySatisfy(
            call ->
                assertThat(call.traceparent())
                    .as("the model request's traceparent")
                    .isEqualTo("00-" + root.traceId() + "-" + modelCall.spanId() + "-01"));
    for (Span redis : trace.stream().filter(s -> s.scope().contains("redis")).toList()) {
      assertThat(ancestors(redis, byId, Span::name)).contains(root.name());
    }

    // the question's log lines carry its trace: on the request thread and on the worker's
    List<String> lines =
        Files.readAllLines(app.log()).stream()
            .filter(line -> line.contains("\"traceId\":\"" + root.traceId() + "\""))
            .toList();
    lines.forEach(line -> System.out.printf("[trace log] %s%n", line));
    assertThat(lines).isNotEmpty();
  }

  /** A chat back end's own trace, which the question joins. */
  private static final String CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

  private static final String CALLER_SPAN = "00f067aa0ba902b7";

  @Test
  void aCallersTraceparentMakesTheQuestionPartOfTheCallersTrace() throws Exception {
    String body =
        """
        {"sessionId":"trace-%s","userId":"u-trace","clientMsgId":"m1",        "text":"I still have not received my new card"}"""
            .formatted(java.util.UUID.randomUUID());
    var accepted =
        app.send(
            "POST",
            "/api/v1/questions",
            body,
            "Authorization",
            app.credentialsFor("/api/v1/questions"),
            "traceparent",
            "00-" + CALLER_TRACE + "-" + CALLER_SPAN + "-01");
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              List<Span> caller =
                  otlp.spans().stream().filter(s -> s.traceId().equals(CALLER_TRACE)).toList();
              assertThat(caller)
                  .as("the accept, a child of the caller's span")
                  .anyMatch(
                      s -> s.kind().equals("SPAN_KIND_SERVER") && s.parentId().equals(CALLER_SPAN));
              assertThat(caller)
                  .as("the question's workflow in the caller's trace")
                  .anyMatch(s -> s.name().equals("RunWorkflow:QuestionWorkflow"));
            });
  }

  private static boolean isModelCall(Span span) {
    return span.scope().contains("java-http-client");
  }

  /** The names (or other field) of a span's parents, nearest first, up to the root. */
  private static List<String> ancestors(
      Span span, Map<String, Span> byId, Function<Span, String> field) {
    List<String> names = new ArrayList<>();
    Span current = byId.get(span.parentId());
    while (current != null) {
      names.add(field.apply(current));
      current = byId.get(current.parentId());
    }
    return names;
  }
}
