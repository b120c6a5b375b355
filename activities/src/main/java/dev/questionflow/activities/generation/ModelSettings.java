package dev.questionflow.activities.generation;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * Where the OpenAI-compatible model lives. A blank base URL means "not configured".
 *
 * @param timeout the HTTP timeout of one call; Temporal's start-to-close timeout bounds the
 *     activity as a whole
 * @param maxTokens the most tokens one answer may have ({@code max_tokens} of every call): bounds
 *     the cost of a call and how much a misled model can write
 * @param httpClients wraps the JDK client the calls go through (tracing: a client span and the
 *     traceparent header); identity when nothing wraps it
 */
public record ModelSettings(
    String baseUrl,
    String apiKey,
    String modelName,
    Duration timeout,
    String companyName,
    int maxTokens,
    UnaryOperator<java.net.http.HttpClient> httpClients) {

  public static final int DEFAULT_MAX_TOKENS = 512;

  public ModelSettings {
    if (maxTokens < 1) {
      throw new IllegalArgumentException(
          "max tokens must be at least 1 (cs.llm.max-tokens, LLM_MAX_TOKENS), got " + maxTokens);
    }
    httpClients = httpClients == null ? UnaryOperator.identity() : httpClients;
  }

  /** The JDK client as it is. */
  public ModelSettings(
      String baseUrl,
      String apiKey,
      String modelName,
      Duration timeout,
      String companyName,
      int maxTokens) {
    this(baseUrl, apiKey, modelName, timeout, companyName, maxTokens, null);
  }

  /** The same settings, the JDK client wrapped by {@code wrap}. */
  public ModelSettings withHttpClients(UnaryOperator<java.net.http.HttpClient> wrap) {
    return new ModelSettings(baseUrl, apiKey, modelName, timeout, companyName, maxTokens, wrap);
  }

  /** With {@link #DEFAULT_MAX_TOKENS}. */
  public ModelSettings(
      String baseUrl, String apiKey, String modelName, Duration timeout, String companyName) {
    this(baseUrl, apiKey, modelName, timeout, companyName, DEFAULT_MAX_TOKENS);
  }

  public boolean configured() {
    return baseUrl != null && !baseUrl.isBlank();
  }

  /** The OpenAI-compatible client for these settings (no retries of its own: the activity's). */
  ChatModel client() {
    return OpenAiChatModel.builder()
        .baseUrl(baseUrl())
        .apiKey(apiKey() == null || apiKey().isBlank() ? "none" : apiKey())
        .modelName(modelName())
        .timeout(timeout())
        .maxTokens(maxTokens())
        .maxRetries(0)
        // the stock JDK client drops the headers of error responses; this one keeps Retry-After
        .httpClientBuilder(RetryAfterHttpClient.builder().wrap(httpClients()))
        .build();
  }
}
