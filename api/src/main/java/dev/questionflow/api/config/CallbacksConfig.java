package dev.questionflow.api.config;

import dev.questionflow.activities.callback.CallerCallbacks;
import dev.questionflow.activities.callback.HttpCallbackActivities;
import dev.questionflow.api.security.SecurityProperties;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Answer callbacks: the callers' registered URLs and secrets (read, and refused when unsafe, at
 * start) and the delivery activity of the tickets queue's worker.
 */
@Configuration(proxyBeanMethods = false)
class CallbacksConfig {

  private static final Logger log = LoggerFactory.getLogger(CallbacksConfig.class);

  @Bean
  CallerCallbacks callerCallbacks(CallbacksProperties properties, SecurityProperties security) {
    CallerCallbacks callbacks =
        CallerCallbacks.parse(
            properties.urls(), properties.secrets(), callerNames(security.callerApiKeys()));
    if (!callbacks.isEmpty()) {
      log.info(
          "answer callbacks for callers {} (dead letters held {})",
          callbacks.callers(),
          properties.deadLetterHold());
    }
    return callbacks;
  }

  @Bean
  HttpCallbackActivities callbackActivities(
      CallerCallbacks callbacks, CallbacksProperties properties, MeterRegistry meters) {
    return new HttpCallbackActivities(callbacks, properties.timeout(), meters);
  }

  /**
   * The names of CALLER_API_KEYS's {@code name:key[:tier]} entries (their keys are checked there).
   */
  static Set<String> callerNames(String callerApiKeys) {
    if (callerApiKeys == null || callerApiKeys.isBlank()) {
      return Set.of();
    }
    return Arrays.stream(callerApiKeys.split(","))
        .map(String::trim)
        .filter(entry -> entry.indexOf(':') > 0)
        .map(entry -> entry.substring(0, entry.indexOf(':')))
        .collect(Collectors.toUnmodifiableSet());
  }
}
