package dev.questionflow.activities.callback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CallerCallbacksTest {

  static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final Set<String> CALLERS = Set.of("webchat", "app");

  private static CallerCallbacks parse(String urls, String secrets) {
    return CallerCallbacks.parse(urls, secrets, CALLERS);
  }

  @Test
  void aCallersFirstUrlIsItsDefaultAndRequestsMayNameAnyPathOnItsRegisteredOrigins() {
    CallerCallbacks callbacks =
        parse(
            "webchat:https://chat.example.com/hooks/qf, webchat:https://backup.example.com:8443/x",
            "webchat:" + SECRET);

    assertThat(callbacks.registered("webchat"))
        .isEqualTo(URI.create("https://chat.example.com/hooks/qf"));
    assertThat(callbacks.registered("app")).isNull();
    assertThat(callbacks.resolve("webchat", null))
        .isEqualTo(URI.create("https://chat.example.com/hooks/qf"));
    assertThat(callbacks.resolve("webchat", "https://CHAT.example.com:443/other?session=1"))
        .isEqualTo(URI.create("https://CHAT.example.com:443/other?session=1"));
    assertThat(callbacks.resolve("webchat", "https://backup.example.com:8443/y")).isNotNull();
    assertThat(callbacks.resolve("app", null)).isNull();
    assertThat(callbacks.signer("webchat")).isPresent();
  }

  @Test
  void aRequestedUrlOffTheRegisteredOriginsIsRefused() {
    CallerCallbacks callbacks =
        parse("webchat:https://chat.example.com/hooks", "webchat:" + SECRET);

    for (String elsewhere :
        new String[] {
          "https://evil.example.com/hooks",
          "https://chat.example.com.evil.com/hooks",
          "https://chat.example.com:8443/hooks",
          "http://chat.example.com/hooks",
          "https://user@chat.example.com/hooks",
          "https://169.254.169.254/latest/meta-data",
          "/relative",
          "not a url"
        }) {
      assertThatThrownBy(() -> callbacks.resolve("webchat", elsewhere))
          .as(elsewhere)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> callbacks.resolve("app", "https://chat.example.com/hooks"))
        .hasMessageContaining("no registered callback host");
  }

  @Test
  void plainHttpOnlyToLoopback() {
    assertThat(
            parse(
                    "webchat:http://127.0.0.1:9000/h,app:http://[::1]:9000/h",
                    "webchat:" + SECRET + ",app:" + SECRET)
                .registered("app"))
        .isEqualTo(URI.create("http://[::1]:9000/h"));
    assertThat(parse("webchat:http://localhost/h", "webchat:" + SECRET).isEmpty()).isFalse();
    assertThatThrownBy(() -> parse("webchat:http://chat.example.com/h", "webchat:" + SECRET))
        .hasMessageContaining("CALLER_CALLBACKS")
        .hasMessageContaining("plain http");
    assertThatThrownBy(() -> parse("webchat:ftp://chat.example.com/h", "webchat:" + SECRET))
        .hasMessageContaining("https");
  }

  @Test
  void aBadConfigurationSaysWhatIsWrongWithoutShowingTheSecret() {
    assertThatThrownBy(() -> parse("https://chat.example.com/h", ""))
        .hasMessageContaining("CALLER_CALLBACKS: entry 1");
    assertThatThrownBy(() -> parse("nobody:https://chat.example.com/h", "nobody:" + SECRET))
        .hasMessageContaining("not in CALLER_API_KEYS");
    assertThatThrownBy(() -> parse("webchat:https://chat.example.com/h", ""))
        .hasMessageContaining("CALLER_CALLBACK_SECRETS has no secret for it");
    assertThatThrownBy(() -> parse("webchat:https://chat.example.com/h", "app:" + SECRET))
        .hasMessageContaining("'app', which has no URL");
    assertThatThrownBy(() -> parse("webchat:https://chat.example.com/h", "webchat:whsec_c2hvcnQ="))
        .hasMessageContaining("CALLER_CALLBACK_SECRETS: entry 1 ('webchat') decodes to 5 bytes")
        .hasMessageNotContaining("c2hvcnQ");
    assertThatThrownBy(
            () ->
                parse(
                    "webchat:https://chat.example.com/h",
                    "webchat:" + SECRET + ",webchat:" + SECRET))
        .hasMessageContaining("second secret");
    assertThat(parse("", "").isEmpty()).isTrue();
    assertThat(parse(null, null).isEmpty()).isTrue();
  }
}
