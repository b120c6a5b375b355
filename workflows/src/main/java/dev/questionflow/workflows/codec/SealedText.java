package dev.questionflow.workflows.codec;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Customer text in our own stores (tickets and session history in Redis), sealed with the same
 * {@link PayloadKeys} as the Temporal payloads: {@code enc1:<keyId>:<base64(nonce || ciphertext ||
 * tag)>}. Values written before encryption was on (plain text) are read as they are.
 */
public final class SealedText {

  /** A stored value is encrypted, and no keys are configured at all. */
  public static final class NotConfiguredException extends IllegalStateException {
    NotConfiguredException() {
      super(
          "a stored value is encrypted but PAYLOAD_KEYS is not set: configure the keys it was"
              + " written with");
    }
  }

  /** No encryption (PAYLOAD_ENCRYPTION=off, or the embedded trial default without keys). */
  public static final SealedText PLAIN = new SealedText(null);

  static final String PREFIX = "enc1:";

  private final PayloadKeys keys;

  private SealedText(PayloadKeys keys) {
    this.keys = keys;
  }

  public static SealedText with(PayloadKeys keys) {
    return keys == null ? PLAIN : new SealedText(keys);
  }

  public boolean encrypting() {
    return keys != null;
  }

  /** The text sealed under the primary key; null stays null. */
  public String seal(String text) {
    if (text == null || keys == null) {
      return text;
    }
    return PREFIX
        + keys.primaryId()
        + ":"
        + Base64.getEncoder().encodeToString(keys.seal(text.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The text of a sealed value, or the value itself when it was stored unsealed.
   *
   * @throws IllegalStateException when it is sealed and no configured key opens it
   */
  public String open(String stored) {
    if (stored == null || !stored.startsWith(PREFIX)) {
      return stored;
    }
    int colon = stored.indexOf(':', PREFIX.length());
    if (colon < 0) {
      return stored;
    }
    if (keys == null) {
      throw new NotConfiguredException();
    }
    String keyId = stored.substring(PREFIX.length(), colon);
    byte[] sealed;
    try {
      sealed = Base64.getDecoder().decode(stored.substring(colon + 1));
    } catch (IllegalArgumentException e) {
      return stored; // customer text that merely starts like a sealed value
    }
    return new String(keys.open(keyId, sealed), StandardCharsets.UTF_8);
  }
}
