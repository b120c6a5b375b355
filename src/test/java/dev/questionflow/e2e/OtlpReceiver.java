package dev.questionflow.e2e;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * An OTLP/HTTP trace receiver (protobuf, {@code POST /v1/traces}) inside the test: what a real
 * Collector ({@link OtelCollector}) forwards to, or what a benchmark exports to directly to count
 * spans. It keeps every span it is sent.
 */
final class OtlpReceiver implements AutoCloseable {

  /** One received span; IDs in lower-case hex, parent "" for a root. */
  record Span(
      String traceId,
      String spanId,
      String parentId,
      String name,
      String kind,
      String scope,
      Map<String, String> attributes) {}

  private final HttpServer server;
  private final boolean keep;
  private final List<Span> spans = new CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.AtomicLong count =
      new java.util.concurrent.atomic.AtomicLong();

  private OtlpReceiver(HttpServer server, boolean keep) {
    this.server = server;
    this.keep = keep;
  }

  /** Keeps every span. */
  static OtlpReceiver start() throws IOException {
    return start(true);
  }

  /** Counts the spans only (a benchmark sends hundreds of thousands). */
  static OtlpReceiver counting() throws IOException {
    return start(false);
  }

  private static OtlpReceiver start(boolean keep) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    OtlpReceiver receiver = new OtlpReceiver(server, keep);
    server.createContext(
        "/v1/traces",
        exchange -> {
          try (InputStream body = exchange.getRequestBody()) {
            receiver.add(ExportTraceServiceRequest.parseFrom(body.readAllBytes()));
            byte[] ok = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, ok.length == 0 ? -1 : ok.length);
            exchange.getResponseBody().write(ok);
          } catch (RuntimeException e) {
            exchange.sendResponseHeaders(400, -1);
          } finally {
            exchange.close();
          }
        });
    server.start();
    return receiver;
  }

  private void add(ExportTraceServiceRequest request) {
    if (!keep) {
      request
          .getResourceSpansList()
          .forEach(r -> r.getScopeSpansList().forEach(s -> count.addAndGet(s.getSpansCount())));
      return;
    }
    HexFormat hex = HexFormat.of();
    List<Span> received = new ArrayList<>();
    for (ResourceSpans resource : request.getResourceSpansList()) {
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        for (io.opentelemetry.proto.trace.v1.Span span : scope.getSpansList()) {
          received.add(
              new Span(
                  hex.formatHex(span.getTraceId().toByteArray()),
                  hex.formatHex(span.getSpanId().toByteArray()),
                  hex.formatHex(span.getParentSpanId().toByteArray()),
                  span.getName(),
                  span.getKind().name(),
                  scope.getScope().getName(),
                  span.getAttributesList().stream()
                      .collect(
                          Collectors.toMap(
                              kv -> kv.getKey(),
                              kv -> kv.getValue().toString().strip(),
                              (a, b) -> a))));
        }
      }
    }
    spans.addAll(received);
    count.addAndGet(received.size());
  }

  long count() {
    return count.get();
  }

  /** The traces endpoint to give the app. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
  }

  List<Span> spans() {
    return List.copyOf(spans);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
