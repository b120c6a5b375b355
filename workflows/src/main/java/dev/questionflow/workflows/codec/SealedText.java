package dev.questionflow.workflows.codec;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Customer text in our own stores (tickets, session history and FAQ changes in Redis), sealed with
 * the same {@link PayloadKeys} as the Temporal payloads. The stored forms:
 *
 * <ul>
 *   <li>{@code enc2:<keyId>:<base64(nonce || ciphertext || tag)>}: what is written now. The Redis
 *       key and the field the value is stored under ({@link Place}) are part of the associated
 *       data, so a value copied to another ticket, turn or field does not open there.
 *   <li>{@code enc1:<keyId>:…}: written before values were bound to their place (associated data:
 *       the key ID only); still read, unless {@code sealedOnly}.
 *   <li>plain text: written while encryption was off; still read, unless {@code sealedOnly}. With
 *       encryption off, a text that itself starts like one of these forms ({@code enc<digits>:}) is
 *       written as {@code enc0:<text>}, so it is never mistaken for a sealed value.
 * </ul>
 *
 * {@code sealedOnly} ({@code PAYLOAD_SEALED_ONLY}, after a reseal) refuses everything but {@code
 * enc2}: someone who can write to Redis can then neither plant text nor put back an old value.
 */
public final class SealedText {

  /**
   * Where a value is stored: the Redis key and the field within it (a JSON field, qualified by what
   * tells two entries of one key apart).
   */
  public record Place(String key, String field) {
    public Place {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(field, "field");
    }
  }

  /** A stored value is encrypted, and no keys are configured at all. */
  public static final class NotConfiguredException extends IllegalStateException {
    NotConfiguredException() {
      super(
          "a stored value is encrypted but PAYLOAD_KEYS is not set: configure the keys it was"
              + " written with");
    }
  }

  /** A value in an old form (plain text or {@code enc1}) where only {@code enc2} is accepted. */
  public static final class RefusedException extends IllegalStateException {
    RefusedException(String form, Place place) {
      // the field, not the key: a session's key holds the customer's user ID
      super(
          "a "
              + form
              + " "
              + place.field()
              + " is refused: PAYLOAD_SEALED_ONLY accepts only values sealed to their place (enc2)");
    }
  }

  /** No encryption (PAYLOAD_ENCRYPTION=off, or the embedded trial default without keys). */
  public static final SealedText PLAIN = new SealedText(null, false);

  static final String PREFIX = "enc1:";
  static final String BOUND = "enc2:";
  static final String ESCAPED = "enc0:";

  /** Every form we write or may write later: text starting like this is ours to interpret. */
  private static final Pattern RESERVED = Pattern.compile("enc[0-9]+:");

  private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private final PayloadKeys keys;
  private final boolean sealedOnly;

  private SealedText(PayloadKeys keys, boolean sealedOnly) {
    this.keys = keys;
    this.sealedOnly = sealedOnly;
  }

  public static SealedText with(PayloadKeys keys) {
    return with(keys, false);
  }

  /**
   * @param sealedOnly refuse values in the old forms (plain, {@code enc1})
   * @throws IllegalArgumentException for sealedOnly without keys
   */
  public static SealedText with(PayloadKeys keys, boolean sealedOnly) {
    if (keys == null) {
      if (sealedOnly) {
        throw new IllegalArgumentException(
            "PAYLOAD_SEALED_ONLY=true needs PAYLOAD_KEYS: without keys every value is plain text");
      }
      return PLAIN;
    }
    return new SealedText(keys, sealedOnly);
  }

  public boolean encrypting() {
    return keys != null;
  }

  public boolean sealedOnly() {
    return sealedOnly;
  }

  /** The ID of the key new values are sealed with; null without keys. */
  public String keyId() {
    return keys == null ? null : keys.primaryId();
  }

  /** The text sealed under the primary key for its place; null stays null. */
  public String seal(String text, Place place) {
    if (text == null) {
      return null;
    }
    if (keys == null) {
      return RESERVED.matcher(text).lookingAt() ? ESCAPED + text : text;
    }
    byte[] sealed = keys.seal(text.getBytes(StandardCharsets.UTF_8), context(place));
    return BOUND + keys.primaryId() + ":" + Base64.getEncoder().encodeToString(sealed);
  }

  /**
   * The text of a stored value read at its place, or the value itself when it was stored plain.
   *
   * @throws PayloadKeys.IntegrityException when it was altered, or sealed for another place
   * @throws PayloadKeys.UnknownKeyException when the key it names is not configured
   * @throws NotConfiguredException when it is sealed and no keys are configured
   * @throws RefusedException when it is in an old form and only enc2 is accepted
   */
  public String open(String stored, Place place) {
    if (stored == null) {
      return null;
    }
    if (stored.startsWith(ESCAPED)) {
      refuseIfSealedOnly("plain", place);
      return stored.substring(ESCAPED.length());
    }
    Envelope envelope = Envelope.parse(stored);
    if (envelope == null) {
      // plain text, including text that merely starts like a sealed value
      refuseIfSealedOnly("plain", place);
      return stored;
    }
    if (keys == null) {
      throw new NotConfiguredException();
    }
    byte[] plain;
    if (envelope.bound()) {
      plain = keys.open(envelope.keyId(), envelope.sealed(), context(place));
    } else {
      refuseIfSealedOnly("enc1", place);
      plain = keys.open(envelope.keyId(), envelope.sealed());
    }
    return new String(plain, StandardCharsets.UTF_8);
  }

  /**
   * True when the value needs no reseal: absent, or sealed to its place under the primary key (a
   * value under an older key is resealed too, so that the old key can be retired).
   */
  public boolean current(String stored) {
    if (stored == null) {
      return true;
    }
    Envelope envelope = Envelope.parse(stored);
    return keys != null
        && envelope != null
        && envelope.bound()
        && envelope.keyId().equals(keys.primaryId());
  }

  /**
   * The value as it should be stored now: opened at its place and sealed again as {@code enc2}
   * under the primary key; a current value is returned as it is.
   *
   * @throws IllegalStateException without keys
   * @throws RefusedException for an old form when sealedOnly: a reseal must not adopt a value
   *     planted after the reseal that sealedOnly is meant to follow
   */
  public String reseal(String stored, Place place) {
    if (keys == null) {
      throw new IllegalStateException("nothing to seal with: PAYLOAD_KEYS is not set");
    }
    return current(stored) ? stored : seal(open(stored, place), place);
  }

  private void refuseIfSealedOnly(String form, Place place) {
    if (sealedOnly) {
      throw new RefusedException(form, place);
    }
  }

  /**
   * The associated data of a bound value: the form, the key and the field, each length-prefixed.
   */
  private static byte[] context(Place place) {
    Objects.requireNonNull(place, "place");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String part : new String[] {BOUND, place.key(), place.field()}) {
      byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
      out.writeBytes(ByteBuffer.allocate(4).putInt(bytes.length).array());
      out.writeBytes(bytes);
    }
    return out.toByteArray();
  }

  /** A value in one of the sealed forms, taken apart; null when it is not one. */
  private record Envelope(boolean bound, String keyId, byte[] sealed) {

    static Envelope parse(String stored) {
      boolean bound = stored.startsWith(BOUND);
      if (!bound && !stored.startsWith(PREFIX)) {
        return null;
      }
      int colon = stored.indexOf(':', PREFIX.length());
      if (colon < 0) {
        return null;
      }
      String keyId = stored.substring(PREFIX.length(), colon);
      if (!KEY_ID.matcher(keyId).matches()) {
        return null;
      }
      byte[] sealed;
      try {
        sealed = Base64.getDecoder().decode(stored.substring(colon + 1));
      } catch (IllegalArgumentException e) {
        return null;
      }
      // nonce and tag at least: anything shorter was never sealed by us
      if (sealed.length < PayloadKeys.NONCE_BYTES + 16) {
        return null;
      }
      return new Envelope(bound, keyId, sealed);
    }
  }
}
