package dev.questionflow.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.callback.CallerCallbacks;
import dev.questionflow.activities.callback.HttpCallbackActivities;
import dev.questionflow.api.security.SecurityProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code cs.callbacks} at start: read and checked against the caller keys, or no start. */
class CallbacksConfigTest {

  private static final String KEYS =
      "cs.security.caller-api-keys=webchat:0123456789abcdef0123456789abcdef:VIP,"
          + "app:sha256=0000000000000000000000000000000000000000000000000000000000000000";
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  @EnableConfigurationProperties({CallbacksProperties.class, SecurityProperties.class})
  static class Properties {}

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withUserConfiguration(Properties.class, CallbacksConfig.class)
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

  @Test
  void aCallerKeysCallbackIsRegisteredWithItsSecret() {
    runner
        .withPropertyValues(
            KEYS,
            "cs.callbacks.urls=app:https://app.example.com/hooks",
            "cs.callbacks.secrets=app:" + SECRET)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(CallerCallbacks.class).registered("app"))
                  .isEqualTo(URI.create("https://app.example.com/hooks"));
              assertThat(context).hasSingleBean(HttpCallbackActivities.class);
            });
  }

  @Test
  void noCallbacksConfiguredIsNone() {
    runner
        .withPropertyValues(KEYS)
        .run(context -> assertThat(context.getBean(CallerCallbacks.class).isEmpty()).isTrue());
  }

  @Test
  void anUnsafeOrIncompleteCallbackStopsTheStartSayingWhy() {
    runner
        .withPropertyValues(
            KEYS,
            "cs.callbacks.urls=webchat:http://chat.example.com/hooks",
            "cs.callbacks.secrets=webchat:" + SECRET)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("CALLER_CALLBACKS")
                    .hasMessageContaining("plain http"));
    runner
        .withPropertyValues(KEYS, "cs.callbacks.urls=webchat:https://chat.example.com/hooks")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("CALLER_CALLBACK_SECRETS has no secret"));
    runner
        .withPropertyValues(
            KEYS,
            "cs.callbacks.urls=stranger:https://chat.example.com/hooks",
            "cs.callbacks.secrets=stranger:" + SECRET)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("not in CALLER_API_KEYS"));
  }
}
