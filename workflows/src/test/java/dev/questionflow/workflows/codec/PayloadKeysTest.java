package dev.questionflow.workflows.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class PayloadKeysTest {

  private static final String K1 = PayloadKeys.generateEntry("k1");
  private static final String K2 = PayloadKeys.generateEntry("k2");

  @Test
  void theFirstKeyEncryptsAndEveryKeyDecrypts() {
    PayloadKeys old = PayloadKeys.parse(K1);
    PayloadKeys rotated = PayloadKeys.parse(K2 + "," + K1);
    byte[] underK1 = old.seal(bytes("order 4711"));

    assertThat(rotated.primaryId()).isEqualTo("k2");
    assertThat(rotated.ids()).containsExactly("k2", "k1");
    assertThat(text(rotated.open("k1", underK1))).isEqualTo("order 4711");
    assertThatThrownBy(() -> old.open("k2", rotated.seal(bytes("x"))))
        .isInstanceOf(PayloadKeys.UnknownKeyException.class)
        .hasMessageContaining("'k2'")
        .hasMessageContaining("PAYLOAD_KEYS");
  }

  @Test
  void everyValueGetsAFreshNonceAndCarriesNoPlainText() {
    PayloadKeys keys = PayloadKeys.parse(K1);

    byte[] a = keys.seal(bytes("same text"));
    byte[] b = keys.seal(bytes("same text"));

    assertThat(a).isNotEqualTo(b);
    assertThat(java.util.Arrays.copyOf(a, 12)).isNotEqualTo(java.util.Arrays.copyOf(b, 12));
    assertThat(a).hasSize(12 + "same text".length() + 16);
    assertThat(new String(a, StandardCharsets.ISO_8859_1)).doesNotContain("same text");
  }

  @Test
  void aTamperedValueOrAnotherKeysLabelIsRefused() {
    String sameMaterialOtherId = "k9:" + K1.substring(K1.indexOf(':') + 1);
    PayloadKeys keys = PayloadKeys.parse(K1 + "," + sameMaterialOtherId);
    byte[] sealed = keys.seal(bytes("refund 20 EUR"));
    byte[] tampered = sealed.clone();
    tampered[tampered.length - 1] ^= 1;

    assertThatThrownBy(() -> keys.open("k1", tampered))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("integrity");
    // the key ID is authenticated: relabelling the value to another ID fails even with equal keys
    assertThatThrownBy(() -> keys.open("k9", sealed)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void badKeyListsAreRefusedWithoutEchoingKeyMaterial() {
    String shortKey = Base64.getEncoder().encodeToString(new byte[16]);
    assertThatThrownBy(() -> PayloadKeys.parse(" ")).hasMessageContaining("PAYLOAD_KEYS is empty");
    assertThatThrownBy(() -> PayloadKeys.parse("k1:" + shortKey))
        .hasMessageContaining("'k1' has 16 bytes")
        .hasMessageContaining("openssl rand -base64 32")
        .hasMessageNotContaining(shortKey);
    assertThatThrownBy(() -> PayloadKeys.parse("k1:not base64!"))
        .hasMessageContaining("not valid base64");
    assertThatThrownBy(() -> PayloadKeys.parse(K1 + "," + K1)).hasMessageContaining("twice");
    assertThatThrownBy(() -> PayloadKeys.parse(":abc")).hasMessageContaining("key ID");
    assertThatThrownBy(() -> PayloadKeys.parse("bad id:" + K1.substring(3)))
        .hasMessageContaining("letters, digits");
    assertThat(PayloadKeys.parse(K1 + ", " + K2 + ",").toString()).isEqualTo("PayloadKeys[k1, k2]");
  }

  @Test
  void sealedTextReadsOldPlainValuesAndNeedsItsKey() {
    SealedText sealer = SealedText.with(PayloadKeys.parse(K1));
    SealedText.Place place = new SealedText.Place("cs:ticket:T-1", "question");
    String sealed = sealer.seal("my card is 4111 1111 1111 1111", place);

    assertThat(sealed).startsWith("enc2:k1:").doesNotContain("4111");
    assertThat(sealer.open(sealed, place)).isEqualTo("my card is 4111 1111 1111 1111");
    assertThat(sealer.open("written before encryption", place))
        .isEqualTo("written before encryption");
    assertThat(sealer.seal(null, place)).isNull();
    assertThat(SealedText.PLAIN.seal("plain", place)).isEqualTo("plain");
    assertThatThrownBy(() -> SealedText.PLAIN.open(sealed, place))
        .hasMessageContaining("PAYLOAD_KEYS is not set");
    assertThatThrownBy(() -> SealedText.with(PayloadKeys.parse(K2)).open(sealed, place))
        .isInstanceOf(PayloadKeys.UnknownKeyException.class);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
