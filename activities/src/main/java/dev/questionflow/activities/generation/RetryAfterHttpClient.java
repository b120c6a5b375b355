package dev.questionflow.activities.generation;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;

/**
 * langchain4j's HTTP client SPI over the JDK client, for one reason: langchain4j 1.19's {@code
 * JdkHttpClient} throws {@code HttpException(statusCode, body)} for a non-2xx answer and drops the
 * response headers, and {@code RateLimitException} only carries that exception, so the server's
 * {@code Retry-After} is unreachable through the stock client. This client throws {@link
 * UpstreamHttpException}, which keeps it. Everything else mirrors {@code JdkHttpClient}: the read
 * timeout is the request timeout ({@code HttpTimeoutException} becomes langchain4j's {@link
 * TimeoutException}), other I/O errors are wrapped in a RuntimeException. Streaming and multipart
 * requests (not used by this activity) are not supported.
 */
final class RetryAfterHttpClient implements HttpClient {

  private final java.net.http.HttpClient jdk;
  private final Duration readTimeout;

  private RetryAfterHttpClient(Builder builder) {
    java.net.http.HttpClient.Builder jdkBuilder = java.net.http.HttpClient.newBuilder();
    if (builder.connectTimeout != null) {
      jdkBuilder.connectTimeout(builder.connectTimeout);
    }
    this.jdk = builder.wrap.apply(jdkBuilder.build());
    this.readTimeout = builder.readTimeout;
  }

  static Builder builder() {
    return new Builder();
  }

  @Override
  public SuccessfulHttpResponse execute(HttpRequest request) throws HttpException {
    if (!request.formDataFields().isEmpty() || !request.formDataFiles().isEmpty()) {
      throw new UnsupportedOperationException(
          "multipart requests are not used by chat completions");
    }
    java.net.http.HttpRequest.Builder jdkRequest =
        java.net.http.HttpRequest.newBuilder().uri(URI.create(request.url()));
    request
        .headers()
        .forEach((name, values) -> values.forEach(value -> jdkRequest.header(name, value)));
    jdkRequest.method(
        request.method().name(),
        request.body() == null
            ? java.net.http.HttpRequest.BodyPublishers.noBody()
            : java.net.http.HttpRequest.BodyPublishers.ofString(request.body()));
    if (readTimeout != null) {
      jdkRequest.timeout(readTimeout);
    }
    try {
      HttpResponse<byte[]> response =
          jdk.send(jdkRequest.build(), HttpResponse.BodyHandlers.ofByteArray());
      int status = response.statusCode();
      if (status < 200 || status >= 300) {
        String body = new String(response.body(), StandardCharsets.UTF_8);
        Duration retryAfter =
            UpstreamHttpException.parseRetryAfter(
                response.headers().firstValue("Retry-After").orElse(null), Clock.systemUTC());
        throw new UpstreamHttpException(status, body, retryAfter);
      }
      return SuccessfulHttpResponse.builder()
          .statusCode(status)
          .headers(response.headers().map())
          .body(response.body())
          .build();
    } catch (HttpTimeoutException e) {
      throw new TimeoutException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RuntimeException(e);
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }

  @Override
  public void execute(
      HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
    throw new UnsupportedOperationException(
        "streaming is not used: generation calls the synchronous chat API");
  }

  static final class Builder implements HttpClientBuilder {
    private Duration connectTimeout;
    private Duration readTimeout;
    private java.util.function.UnaryOperator<java.net.http.HttpClient> wrap =
        java.util.function.UnaryOperator.identity();

    /** Wraps the JDK client (tracing); identity by default. */
    Builder wrap(java.util.function.UnaryOperator<java.net.http.HttpClient> wrap) {
      this.wrap = wrap;
      return this;
    }

    @Override
    public Duration connectTimeout() {
      return connectTimeout;
    }

    @Override
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    @Override
    public Duration readTimeout() {
      return readTimeout;
    }

    @Override
    public Builder readTimeout(Duration timeout) {
      this.readTimeout = timeout;
      return this;
    }

    @Override
    public HttpClient build() {
      return new RetryAfterHttpClient(this);
    }
  }
}
