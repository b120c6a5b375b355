package dev.questionflow.api.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Answer callbacks to chat back ends ({@code cs.callbacks}, docs/configuration.md).
 *
 * @param urls {@code CALLER_CALLBACKS}: comma-separated {@code name:https://…}, a caller's first
 *     URL its default, each URL's origin one its requests' {@code callbackUrl} may use
 * @param secrets {@code CALLER_CALLBACK_SECRETS}: comma-separated {@code name:whsec_…}, one per
 *     caller with a URL
 * @param timeout connect and answer timeout of one delivery attempt
 * @param deadLetterHold how long a callback that failed its retries waits for a redrive
 */
@ConfigurationProperties("cs.callbacks")
public record CallbacksProperties(
    String urls, String secrets, Duration timeout, Duration deadLetterHold) {

  public CallbacksProperties {
    timeout = timeout == null ? Duration.ofSeconds(5) : timeout;
    deadLetterHold = deadLetterHold == null ? Duration.ofDays(3) : deadLetterHold;
  }
}
