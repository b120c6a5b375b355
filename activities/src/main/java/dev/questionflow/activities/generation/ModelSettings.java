package dev.questionflow.activities.generation;

import java.time.Duration;

/**
 * Where the OpenAI-compatible model lives. A blank base URL means "not configured".
 *
 * @param timeout the HTTP timeout of one call; Temporal's start-to-close timeout bounds the
 *     activity as a whole
 */
public record ModelSettings(
    String baseUrl, String apiKey, String modelName, Duration timeout, String companyName) {

  public boolean configured() {
    return baseUrl != null && !baseUrl.isBlank();
  }
}
