package dev.questionflow.activities.callback;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks' symmetric signature (https://www.standardwebhooks.com): {@code
 * webhook-signature: v1,<base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>">}, keyed
 * with the base64-decoded part of a {@code whsec_} secret, so a receiver's Standard Webhooks or
 * Svix library verifies it as it is.
 */
public final class WebhookSigner {

  public static final String SECRET_PREFIX = "whsec_";

  /** The specification's bounds on a secret's decoded length. */
  static final int MIN_SECRET_BYTES = 24;

  static final int MAX_SECRET_BYTES = 64;

  private final SecretKeySpec key;

  private WebhookSigner(byte[] secret) {
    this.key = new SecretKeySpec(secret, "HmacSHA256");
  }

  /**
   * @param secret {@code whsec_} and the base64 of 24 to 64 random bytes
   * @throws IllegalArgumentException for anything else (the message never holds the secret)
   */
  public static WebhookSigner fromSecret(String secret) {
    if (secret == null || !secret.startsWith(SECRET_PREFIX)) {
      throw new IllegalArgumentException("does not start with " + SECRET_PREFIX);
    }
    byte[] decoded;
    try {
      decoded = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("is not " + SECRET_PREFIX + " and base64");
    }
    if (decoded.length < MIN_SECRET_BYTES || decoded.length > MAX_SECRET_BYTES) {
      throw new IllegalArgumentException(
          "decodes to "
              + decoded.length
              + " bytes, "
              + MIN_SECRET_BYTES
              + " to "
              + MAX_SECRET_BYTES
              + " are required (e.g. whsec_$(openssl rand -base64 32))");
    }
    return new WebhookSigner(decoded);
  }

  /** The {@code webhook-signature} header's value for this attempt. */
  public String sign(String webhookId, long timestampSeconds, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      mac.update((webhookId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
      return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }
}
