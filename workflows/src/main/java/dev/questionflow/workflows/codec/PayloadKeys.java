package dev.questionflow.workflows.codec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The AES-256-GCM keys that protect customer text at rest ({@code PAYLOAD_KEYS}: comma-separated
 * {@code keyId:base64key}). The first key encrypts; every key decrypts, so a new key is rotated in
 * by putting it first and keeping the old ones behind it until nothing written under them is needed
 * any more (running workflows, replays, stored tickets and sessions).
 *
 * <p>Each sealed value is {@code nonce (12 bytes) || ciphertext || tag (16 bytes)}, with a fresh
 * random nonce per value (NIST SP 800-38D: at most 2^32 random nonces per key, far beyond a
 * deployment's payloads between rotations) and the key ID as associated data, so a value cannot be
 * relabelled to another key; values stored in Redis also carry their place there ({@link
 * SealedText}). JDK crypto only: AES-GCM is in every JRE.
 */
public final class PayloadKeys {

  /** Key IDs travel in payload metadata and Redis values: keep them short and plain. */
  private static final java.util.regex.Pattern KEY_ID =
      java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,64}");

  static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<String, SecretKey> keys;
  private final String primaryId;

  private PayloadKeys(Map<String, SecretKey> keys) {
    this.keys = Map.copyOf(keys);
    this.primaryId = keys.keySet().iterator().next();
  }

  /**
   * Parses {@code PAYLOAD_KEYS}. Messages name the key ID and what is wrong with it, never the key.
   *
   * @throws IllegalArgumentException for a blank list, a malformed entry, a key that is not 32
   *     bytes of base64, or a repeated key ID
   */
  public static PayloadKeys parse(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("PAYLOAD_KEYS is empty");
    }
    Map<String, SecretKey> keys = new LinkedHashMap<>();
    for (String entry : spec.split(",")) {
      String trimmed = entry.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      int colon = trimmed.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException(
            "PAYLOAD_KEYS entries are keyId:base64key; an entry has no key ID");
      }
      String id = trimmed.substring(0, colon);
      if (!KEY_ID.matcher(id).matches()) {
        throw new IllegalArgumentException(
            "PAYLOAD_KEYS key ID '" + id + "' must be 1-64 letters, digits, '.', '_' or '-'");
      }
      byte[] material;
      try {
        material = Base64.getDecoder().decode(trimmed.substring(colon + 1).trim());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("PAYLOAD_KEYS key '" + id + "' is not valid base64");
      }
      if (material.length != 32) {
        throw new IllegalArgumentException(
            "PAYLOAD_KEYS key '"
                + id
                + "' has "
                + material.length
                + " bytes; AES-256 needs 32 (openssl rand -base64 32)");
      }
      if (keys.putIfAbsent(id, new SecretKeySpec(material, "AES")) != null) {
        throw new IllegalArgumentException("PAYLOAD_KEYS names key '" + id + "' twice");
      }
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("PAYLOAD_KEYS is empty");
    }
    return new PayloadKeys(keys);
  }

  /** A new random key as a {@code PAYLOAD_KEYS} entry, e.g. for a local development setup. */
  public static String generateEntry(String keyId) {
    byte[] material = new byte[32];
    RANDOM.nextBytes(material);
    return keyId + ":" + Base64.getEncoder().encodeToString(material);
  }

  /** The ID of the key new values are encrypted with. */
  public String primaryId() {
    return primaryId;
  }

  /** Every key ID, the encrypting one first. */
  public List<String> ids() {
    List<String> ids = new ArrayList<>(keys.size());
    ids.add(primaryId);
    keys.keySet().stream().filter(id -> !id.equals(primaryId)).sorted().forEach(ids::add);
    return ids;
  }

  public boolean has(String keyId) {
    return keys.containsKey(keyId);
  }

  /** Encrypts with the primary key: nonce || ciphertext || tag. */
  public byte[] seal(byte[] plain) {
    return sealWith(plain, primaryId.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Encrypts with the primary key, binding the value to {@code context} (where it is stored): it
   * opens only with {@link #open(String, byte[], byte[])} and the same context.
   */
  public byte[] seal(byte[] plain, byte[] context) {
    return sealWith(plain, boundData(primaryId, context));
  }

  private byte[] sealWith(byte[] plain, byte[] associatedData) {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, keys.get(primaryId), new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(associatedData);
      byte[] sealed = cipher.doFinal(plain);
      return ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM encryption failed", e);
    }
  }

  /**
   * The associated data of a bound value: the key ID's length (4 bytes) and UTF-8 bytes, then the
   * context. It starts with a zero byte (key IDs are at most 64 bytes), which no unbound value's
   * associated data (the bare key ID) does, so neither form opens as the other.
   */
  private static byte[] boundData(String keyId, byte[] context) {
    byte[] id = keyId.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(4 + id.length + context.length)
        .putInt(id.length)
        .put(id)
        .put(context)
        .array();
  }

  /**
   * Decrypts a value {@link #seal sealed} under {@code keyId}.
   *
   * @throws UnknownKeyException when that key is not (any longer) configured
   * @throws IntegrityException when the value was altered, or sealed under another key of the same
   *     name
   * @throws IllegalArgumentException when the value is not a sealed value
   */
  public byte[] open(String keyId, byte[] sealed) {
    return openWith(keyId, sealed, keyId.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Decrypts a value {@link #seal(byte[], byte[]) sealed} under {@code keyId} for {@code context}.
   *
   * @throws IntegrityException also when it was sealed for another context
   */
  public byte[] open(String keyId, byte[] sealed, byte[] context) {
    return openWith(keyId, sealed, boundData(keyId, context));
  }

  private byte[] openWith(String keyId, byte[] sealed, byte[] associatedData) {
    SecretKey key = keys.get(keyId);
    if (key == null) {
      throw new UnknownKeyException(keyId);
    }
    if (sealed.length < NONCE_BYTES + TAG_BITS / 8) {
      throw new IllegalArgumentException("encrypted value too short");
    }
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
      cipher.updateAAD(associatedData);
      return cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES);
    } catch (javax.crypto.AEADBadTagException e) {
      throw new IntegrityException(keyId, e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM decryption failed", e);
    }
  }

  /** A sealed value that does not open under its key: altered, or sealed with other key bytes. */
  public static final class IntegrityException extends IllegalArgumentException {
    IntegrityException(String keyId, Throwable cause) {
      super("encrypted value under key '" + keyId + "' failed its integrity check", cause);
    }
  }

  /** A value was encrypted under a key that is not in {@code PAYLOAD_KEYS}. */
  public static final class UnknownKeyException extends IllegalStateException {
    UnknownKeyException(String keyId) {
      super(
          "encrypted under key '"
              + keyId
              + "', which is not in PAYLOAD_KEYS: keep retired keys after the new one until nothing"
              + " written under them is needed");
    }
  }

  @Override
  public String toString() {
    return "PayloadKeys" + ids(); // never the key material
  }
}
