package dev.questionflow.api.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

@ExtendWith(OutputCaptureExtension.class)
class PayloadEncryptionConfigTest {

  private static final String KEYS = "k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
  private final PayloadEncryptionConfig config = new PayloadEncryptionConfig();

  @Test
  void aTemporalServerWithoutKeysRefusesToStartAndSaysHowToMakeOne() {
    assertThatThrownBy(() -> config.payloadEncryption(properties(null, "auto"), false, ""))
        .isInstanceOfSatisfying(
            MissingPayloadKeysException.class,
            e -> {
              var analysis = new MissingPayloadKeysException.Analyzer().analyze(e);
              assertThat(analysis.getDescription()).contains("PAYLOAD_KEYS is not");
              assertThat(analysis.getAction())
                  .contains("PAYLOAD_KEYS=\"k1:$(openssl rand -base64 32)\"")
                  .contains("PAYLOAD_ENCRYPTION=off");
            });
  }

  @Test
  void offIsExplicitAndTheEmbeddedDefaultMayRunWithoutKeys() {
    assertThat(config.payloadEncryption(properties(null, "off"), false, "").keys()).isNull();
    assertThat(config.payloadEncryption(properties(KEYS, "off"), false, "").keys()).isNull();
    assertThat(config.payloadEncryption(properties(null, "auto"), true, "").keys()).isNull();
    assertThat(config.payloadEncryption(properties(KEYS, "auto"), false, "").keys().primaryId())
        .isEqualTo("k1");
    assertThat(config.payloadEncryption(properties(KEYS, "auto"), true, "").keys()).isNotNull();
    assertThatThrownBy(() -> properties(KEYS, "maybe"))
        .hasMessageContaining("PAYLOAD_ENCRYPTION must be auto or off");
  }

  /** The embedded default without keys but with Redis: the stores outlive the process. */
  @Test
  void theWarningWithoutKeysSaysRedisWhenTheStoresAreInRedis(CapturedOutput output) {
    config.payloadEncryption(properties(null, "auto"), true, "redis://127.0.0.1:6379");
    assertThat(output.getOut() + output.getErr())
        .contains("PAYLOAD_KEYS is not set")
        .contains("stored in Redis (REDIS_URL) UNENCRYPTED");
  }

  @Test
  void sealedOnlyNeedsKeys() {
    var off = config.payloadEncryption(properties(null, "off"), false, "");
    assertThatThrownBy(() -> config.sealedText(off, sealedOnly(null)))
        .hasMessageContaining("PAYLOAD_SEALED_ONLY=true needs PAYLOAD_KEYS");
    var on = config.payloadEncryption(properties(KEYS, "auto"), false, "");
    assertThat(config.sealedText(on, sealedOnly(KEYS)).sealedOnly()).isTrue();
    assertThat(config.sealedText(on, properties(KEYS, "auto")).sealedOnly()).isFalse();
  }

  private static PayloadProperties properties(String keys, String encryption) {
    return new PayloadProperties(keys, encryption, List.of(), null, false);
  }

  private static PayloadProperties sealedOnly(String keys) {
    return new PayloadProperties(keys, keys == null ? "off" : "auto", List.of(), null, true);
  }
}
