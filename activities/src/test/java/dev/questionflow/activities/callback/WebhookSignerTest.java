package dev.questionflow.activities.callback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WebhookSignerTest {

  /** The test vector of the Standard Webhooks reference libraries (and Svix's). */
  @Test
  void signsTheStandardWebhooksTestVector() {
    WebhookSigner signer = WebhookSigner.fromSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");

    String signature =
        signer.sign(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8));

    assertThat(signature).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  }

  @Test
  void anyChangeOfIdTimestampOrBodyChangesTheSignature() {
    WebhookSigner signer = WebhookSigner.fromSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    byte[] body = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
    String signed = signer.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);

    assertThat(signer.sign("msg_p5jXN8AQM9LWM0D4loKWxJeK", 1614265330, body)).isNotEqualTo(signed);
    assertThat(signer.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265331, body)).isNotEqualTo(signed);
    assertThat(
            signer.sign(
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1614265330,
                "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8)))
        .isNotEqualTo(signed);
  }

  @Test
  void refusesSecretsThatAreNotWhsecBase64OfEnoughBytes() {
    assertThatThrownBy(() -> WebhookSigner.fromSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        .hasMessageContaining("whsec_");
    assertThatThrownBy(() -> WebhookSigner.fromSecret("whsec_not base64!"))
        .hasMessageContaining("base64");
    assertThatThrownBy(() -> WebhookSigner.fromSecret("whsec_c2hvcnQ="))
        .hasMessageContaining("decodes to 5 bytes");
  }
}
