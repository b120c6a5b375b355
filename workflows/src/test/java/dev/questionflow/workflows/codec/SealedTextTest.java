package dev.questionflow.workflows.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.workflows.codec.SealedText.Place;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * Stored text bound to its place (enc2), the old forms still read (enc1, plain), sealed-only mode,
 * and plain text that merely looks sealed.
 */
class SealedTextTest {

  private static final String K1 = PayloadKeys.generateEntry("k1");
  private static final String K2 = PayloadKeys.generateEntry("k2");
  private static final PayloadKeys KEYS = PayloadKeys.parse(K1);
  private static final SealedText SEALED = SealedText.with(KEYS);

  private static final Place QUESTION_1 = new Place("cs:ticket:T-1", "question");
  private static final Place REPLY_1 = new Place("cs:ticket:T-1", "reply");
  private static final Place QUESTION_2 = new Place("cs:ticket:T-2", "question");

  @Test
  void aValueOpensOnlyWhereItWasStored() {
    String sealed = SEALED.seal("my card 4111 is blocked", QUESTION_1);

    assertThat(sealed).startsWith("enc2:k1:").doesNotContain("4111");
    assertThat(SEALED.open(sealed, QUESTION_1)).isEqualTo("my card 4111 is blocked");
    // another ticket, another field of the same ticket
    assertThatThrownBy(() -> SEALED.open(sealed, QUESTION_2))
        .isInstanceOf(PayloadKeys.IntegrityException.class);
    assertThatThrownBy(() -> SEALED.open(sealed, REPLY_1))
        .isInstanceOf(PayloadKeys.IntegrityException.class);
    // the key and field are length-prefixed: shifting a separator does not make another place
    // with the same bytes
    assertThatThrownBy(() -> SEALED.open(sealed, new Place("cs:ticket:T-1q", "uestion")))
        .isInstanceOf(PayloadKeys.IntegrityException.class);
  }

  @Test
  void relabellingABoundValueAsTheOldFormDoesNotStripItsPlace() {
    String sealed = SEALED.seal("text", QUESTION_1);
    String asEnc1 = "enc1:" + sealed.substring("enc2:".length());
    assertThatThrownBy(() -> SEALED.open(asEnc1, QUESTION_2))
        .isInstanceOf(PayloadKeys.IntegrityException.class);
    // and an enc1 value relabelled as enc2 does not open either
    String enc1 = enc1(KEYS, "text");
    String asEnc2 = "enc2:" + enc1.substring("enc1:".length());
    assertThatThrownBy(() -> SEALED.open(asEnc2, QUESTION_1))
        .isInstanceOf(PayloadKeys.IntegrityException.class);
  }

  @Test
  void enc1AndPlainValuesWrittenBeforeAreStillRead() {
    assertThat(SEALED.open(enc1(KEYS, "old sealed"), QUESTION_1)).isEqualTo("old sealed");
    assertThat(SEALED.open("old plain", QUESTION_1)).isEqualTo("old plain");
    assertThat(SEALED.open(null, QUESTION_1)).isNull();
    // under a rotated key list too
    SealedText rotated = SealedText.with(PayloadKeys.parse(K2 + "," + K1));
    assertThat(rotated.open(enc1(KEYS, "old sealed"), QUESTION_1)).isEqualTo("old sealed");
    assertThat(rotated.open(SEALED.seal("under k1", QUESTION_1), QUESTION_1)).isEqualTo("under k1");
  }

  @Test
  void aResealWritesTheBoundFormUnderThePrimaryKey() {
    SealedText rotated = SealedText.with(PayloadKeys.parse(K2 + "," + K1));
    String underK1 = SEALED.seal("under k1", QUESTION_1);

    assertThat(rotated.current(underK1)).isFalse();
    assertThat(rotated.current(enc1(KEYS, "x"))).isFalse();
    assertThat(rotated.current("plain")).isFalse();
    assertThat(rotated.current(null)).isTrue();
    for (String old : new String[] {underK1, enc1(KEYS, "under k1"), "under k1"}) {
      String resealed = rotated.reseal(old, QUESTION_1);
      assertThat(resealed).startsWith("enc2:k2:");
      assertThat(rotated.current(resealed)).isTrue();
      assertThat(rotated.open(resealed, QUESTION_1)).isEqualTo("under k1");
      assertThat(rotated.reseal(resealed, QUESTION_1)).isSameAs(resealed);
    }
    assertThatThrownBy(() -> SealedText.PLAIN.reseal("plain", QUESTION_1))
        .hasMessageContaining("PAYLOAD_KEYS");
  }

  @Test
  void sealedOnlyRefusesPlainAndEnc1ButReadsEnc2() {
    SealedText strict = SealedText.with(KEYS, true);
    String bound = strict.seal("bound", QUESTION_1);

    assertThat(strict.open(bound, QUESTION_1)).isEqualTo("bound");
    assertThat(strict.open(null, QUESTION_1)).isNull();
    assertThatThrownBy(() -> strict.open("planted plain text", QUESTION_1))
        .isInstanceOf(SealedText.RefusedException.class)
        .hasMessageContaining("plain question is refused")
        .hasMessageNotContaining("planted");
    assertThatThrownBy(() -> strict.open(enc1(KEYS, "old"), QUESTION_1))
        .isInstanceOf(SealedText.RefusedException.class);
    assertThatThrownBy(() -> strict.open("enc0:escaped plain", QUESTION_1))
        .isInstanceOf(SealedText.RefusedException.class);
    // a reseal in sealed-only mode does not adopt a planted value
    assertThatThrownBy(() -> strict.reseal("planted", QUESTION_1))
        .isInstanceOf(SealedText.RefusedException.class);
    assertThatThrownBy(() -> SealedText.with(null, true))
        .hasMessageContaining("PAYLOAD_SEALED_ONLY=true needs PAYLOAD_KEYS");
  }

  @Test
  void withEncryptionOffTextThatLooksSealedIsStoredAndReadAsText() {
    String looksSealed = enc1(KEYS, "something"); // well-formed: key ID, base64, long enough
    for (String text :
        new String[] {looksSealed, "enc1:k1:hello", "enc2:x:y", "enc0:z", "enc1: my card"}) {
      String stored = SealedText.PLAIN.seal(text, QUESTION_1);
      assertThat(SealedText.PLAIN.open(stored, QUESTION_1)).as(text).isEqualTo(text);
      // and once encryption is turned on, the same stored value is still that text
      assertThat(SEALED.open(stored, QUESTION_1)).as(text).isEqualTo(text);
    }
    assertThat(SealedText.PLAIN.seal("plain text", QUESTION_1)).isEqualTo("plain text");
    assertThat(SealedText.PLAIN.seal("encore: x", QUESTION_1)).isEqualTo("encore: x");
    // a really sealed value still needs its keys
    assertThatThrownBy(() -> SealedText.PLAIN.open(SEALED.seal("x", QUESTION_1), QUESTION_1))
        .isInstanceOf(SealedText.NotConfiguredException.class);
  }

  /** The form written before values were bound: the key ID alone as associated data. */
  static String enc1(PayloadKeys keys, String text) {
    return "enc1:"
        + keys.primaryId()
        + ":"
        + Base64.getEncoder().encodeToString(keys.seal(text.getBytes(StandardCharsets.UTF_8)));
  }
}
