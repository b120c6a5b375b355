package dev.questionflow.activities.fakemodel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A local OpenAI-compatible chat-completions server for tests: real HTTP on a free loopback port, scripted
 * replies, and a record of every request it received, so tests drive the real langchain4j client code.
 *
 * <p>Run standalone with {@code java -cp ... dev.questionflow.activities.fakemodel.FakeModelServer [port]}.
 */
public final class FakeModelServer implements AutoCloseable {

  /** One chat-completions request as received. */
  public record Call(String model, String systemPrompt, String userMessage, JsonNode body) {}

  /** What to answer: an HTTP status, a body (assistant text when 200), and a delay before answering. */
  public record Reply(int status, String content, Duration delay) {
    public static Reply text(String content) {
      return new Reply(200, content, Duration.ZERO);
    }

    public static Reply error(int status) {
      return new Reply(status, "scripted failure " + status, Duration.ZERO);
    }

    public Reply after(Duration wait) {
      return new Reply(status, content, wait);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final AtomicInteger sequence = new AtomicInteger();
  private volatile Function<Call, Reply> script =
      call -> Reply.text("Model answer to: " + call.userMessage());

  private FakeModelServer(HttpServer server) {
    this.server = server;
  }

  public static FakeModelServer start() {
    return start(0);
  }

  public static FakeModelServer start(int port) {
    try {
      HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
      FakeModelServer fake = new FakeModelServer(http);
      http.createContext("/v1/chat/completions", fake::handleChat);
      http.setExecutor(Executors.newCachedThreadPool());
      http.start();
      return fake;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the fake model server", e);
    }
  }

  /** The value for LLM_BASE_URL. */
  public String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  public void script(Function<Call, Reply> script) {
    this.script = script;
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  public void clearCalls() {
    calls.clear();
  }

  private void handleChat(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        send(exchange, 405, error("method not allowed"));
        return;
      }
      JsonNode body = JSON.readTree(exchange.getRequestBody());
      String system = null;
      String user = null;
      for (JsonNode message : body.path("messages")) {
        String role = message.path("role").asText();
        if ("system".equals(role)) {
          system = message.path("content").asText();
        } else if ("user".equals(role)) {
          user = message.path("content").asText();
        }
      }
      Call call = new Call(body.path("model").asText(), system, user, body);
      calls.add(call);
      Reply reply = script.apply(call);
      if (!reply.delay().isZero()) {
        Thread.sleep(reply.delay().toMillis()); // scripted latency of the fake upstream
      }
      if (reply.status() != 200) {
        send(exchange, reply.status(), error(reply.content()));
        return;
      }
      send(exchange, 200, completion(call.model(), reply.content()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String completion(String model, String content) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("id", "chatcmpl-fake-" + sequence.incrementAndGet());
    root.put("object", "chat.completion");
    root.put("created", System.currentTimeMillis() / 1000);
    root.put("model", model);
    ObjectNode choice = root.putArray("choices").addObject();
    choice.put("index", 0);
    choice.putObject("message").put("role", "assistant").put("content", content);
    choice.put("finish_reason", "stop");
    root.putObject("usage").put("prompt_tokens", 10).put("completion_tokens", 10).put("total_tokens", 20);
    return JSON.writeValueAsString(root);
  }

  private static String error(String message) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.putObject("error").put("message", message).put("type", "server_error");
    return JSON.writeValueAsString(root);
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }

  public static void main(String[] args) throws InterruptedException {
    FakeModelServer fake = start(args.length > 0 ? Integer.parseInt(args[0]) : 0);
    System.out.println("fake model listening, LLM_BASE_URL=" + fake.baseUrl());
    Thread.currentThread().join();
  }
}
