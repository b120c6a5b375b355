package dev.questionflow.bench.naive;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The app on a random port against a tiny OpenAI-compatible stub: the model's answer, then (stub
 * answering 500) the FAQ's answer for a question of the default pack, and 503 problem+json for
 * gibberish.
 */
class NaiveBotTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static final String COMPLETION =
      """
      {"id": "chatcmpl-stub", "object": "chat.completion", "created": 1700000000, "model": "stub",
       "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Hello from the stub model."}}],
       "usage": {"prompt_tokens": 10, "completion_tokens": 6, "total_tokens": 16}}
      """;

  private static final AtomicBoolean modelFails = new AtomicBoolean();
  private static final AtomicInteger modelCalls = new AtomicInteger();
  private static HttpServer stub;
  private static ConfigurableApplicationContext app;
  private static String baseUrl;

  @BeforeAll
  static void start() throws IOException {
    stub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    stub.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          modelCalls.incrementAndGet();
          boolean fails = modelFails.get();
          byte[] body =
              (fails
                      ? "{\"error\": {\"message\": \"stub failure\", \"type\": \"server_error\"}}"
                      : COMPLETION)
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(fails ? 500 : 200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    stub.start();
    app =
        SpringApplication.run(
            NaiveBotApplication.class,
            "--server.port=0",
            "--server.address=127.0.0.1",
            "--naive.llm.base-url=http://127.0.0.1:" + stub.getAddress().getPort() + "/v1",
            "--naive.llm.model=stub",
            // the stored indexes api's tests and bin/image build, reused by fingerprint: built in
            // memory here they cost ~3.5 min of embedding on a 2-core machine
            "--naive.faq.index-dir=../../data/faq-index");
    baseUrl = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
    if (stub != null) {
      stub.stop(0);
    }
  }

  @Test
  void modelThenFaqThenProblem() throws Exception {
    HttpResponse<String> health =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(baseUrl + "/actuator/health")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(health.body()).path("status").asText()).isEqualTo("UP");

    // the model answers
    modelFails.set(false);
    HttpResponse<String> llm = ask("My card hasn't arrived yet. When will I get it?");
    assertThat(llm.statusCode()).isEqualTo(200);
    JsonNode answered = JSON.readTree(llm.body());
    assertThat(answered.path("level").asText()).isEqualTo("llm");
    assertThat(answered.path("answer").asText()).isEqualTo("Hello from the stub model.");
    assertThat(answered.has("faqId")).isFalse();

    // the model fails (500 at every attempt): the FAQ answers a question of the default pack
    modelFails.set(true);
    modelCalls.set(0);
    HttpResponse<String> faq = ask("My card hasn't arrived yet. When will I get it?");
    assertThat(faq.statusCode()).isEqualTo(200);
    JsonNode fallback = JSON.readTree(faq.body());
    assertThat(fallback.path("level").asText()).isEqualTo("faq");
    assertThat(fallback.path("faqId").asText()).isEqualTo("card_arrival");
    assertThat(fallback.path("answer").asText()).startsWith("Cards arrive within 3-5 working days");
    // langchain4j's default maxRetries (2): three attempts before giving up
    assertThat(modelCalls.get()).isEqualTo(1 + NaiveBotApplication.LANGCHAIN4J_DEFAULT_MAX_RETRIES);

    // the model fails and the FAQ abstains: 503 problem+json
    HttpResponse<String> none = ask("zorblax quimfrot vendelshnap purple teapot oscillation");
    assertThat(none.statusCode()).isEqualTo(503);
    assertThat(none.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonNode problem = JSON.readTree(none.body());
    assertThat(problem.path("status").asInt()).isEqualTo(503);
    assertThat(problem.path("title").asText()).isEqualTo("Service Unavailable");
  }

  private static HttpResponse<String> ask(String question) throws Exception {
    String body = JSON.writeValueAsString(Map.of("question", question));
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(baseUrl + "/ask"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
