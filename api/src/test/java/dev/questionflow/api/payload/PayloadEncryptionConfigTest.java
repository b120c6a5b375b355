package dev.questionflow.api.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PayloadEncryptionConfigTest {

  private static final String KEYS = "k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
  private final PayloadEncryptionConfig config = new PayloadEncryptionConfig();

  @Test
  void aTemporalServerWithoutKeysRefusesToStartAndSaysHowToMakeOne() {
    assertThatThrownBy(() -> config.payloadEncryption(properties(null, "auto"), false))
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
    assertThat(config.payloadEncryption(properties(null, "off"), false).keys()).isNull();
    assertThat(config.payloadEncryption(properties(KEYS, "off"), false).keys()).isNull();
    assertThat(config.payloadEncryption(properties(null, "auto"), true).keys()).isNull();
    assertThat(config.payloadEncryption(properties(KEYS, "auto"), false).keys().primaryId())
        .isEqualTo("k1");
    assertThat(config.payloadEncryption(properties(KEYS, "auto"), true).keys()).isNotNull();
    assertThatThrownBy(() -> properties(KEYS, "maybe"))
        .hasMessageContaining("PAYLOAD_ENCRYPTION must be auto or off");
  }

  private static PayloadProperties properties(String keys, String encryption) {
    return new PayloadProperties(keys, encryption, List.of(), null);
  }
}
