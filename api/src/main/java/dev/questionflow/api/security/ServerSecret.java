package dev.questionflow.api.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's own secret ({@code WORKFLOW_ID_SECRET}): keys the workflow-ID HMAC and signs the
 * chat page's web sessions, each with its own derived key. When unset it is generated once and kept
 * in {@code <data dir>/secrets/workflow-id.secret} (owner-only), so IDs stay the same across
 * restarts; instances that share questions must share the secret, so production sets it explicitly.
 */
public final class ServerSecret {

  private static final Logger log = LoggerFactory.getLogger(ServerSecret.class);
  static final String FILE = "secrets/workflow-id.secret";

  private final byte[] secret;

  private ServerSecret(byte[] secret) {
    if (secret.length < 16) {
      throw new IllegalArgumentException(
          "WORKFLOW_ID_SECRET must be at least 16 bytes (openssl rand -base64 32)");
    }
    this.secret = secret.clone();
  }

  static ServerSecret of(String configured, Path dataDir) {
    return of(configured, dataDir, -1);
  }

  /**
   * @param appUid the user the app runs as
   */
  static ServerSecret of(String configured, Path dataDir, int appUid) {
    if (configured != null && !configured.isBlank()) {
      return new ServerSecret(configured.getBytes(StandardCharsets.UTF_8));
    }
    Path file = dataDir.resolve(FILE).toAbsolutePath();
    try {
      if (!Files.exists(file)) {
        generate(file);
      }
      byte[] stored = Base64.getDecoder().decode(Files.readString(file).trim());
      log.warn(
          "WORKFLOW_ID_SECRET is not set: using the generated secret in {}; instances that share questions must"
              + " share one secret (set WORKFLOW_ID_SECRET)",
          file);
      return new ServerSecret(stored);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read or create " + file + " (set WORKFLOW_ID_SECRET)", e);
    }
  }

  /**
   * Written to a temporary file and linked in place, so two instances starting at once keep one
   * secret.
   */
  private static void generate(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    byte[] fresh = new byte[32];
    new SecureRandom().nextBytes(fresh);
    Path temporary = Files.createTempFile(file.getParent(), "secret", ".tmp");
    try {
      try {
        Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        log.debug("no POSIX permissions on this file system: {}", e.toString());
      }
      Files.writeString(temporary, Base64.getEncoder().encodeToString(fresh) + "\n");
      try {
        Files.createLink(
            file, temporary); // atomic, and never replaces a secret another instance made first
      } catch (FileAlreadyExistsException e) {
        log.debug("another instance created {} first", file);
      }
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  /**
   * HMAC-SHA256 over the parts (each followed by a newline, which no part may contain) with the key
   * for purpose.
   */
  public byte[] mac(String purpose, String... parts) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key(purpose));
      for (String part : parts) {
        mac.update(String.valueOf(part).getBytes(StandardCharsets.UTF_8));
        mac.update((byte) '\n');
      }
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /**
   * A key for one purpose, derived from the secret (HMAC of the purpose's name), so purposes never
   * share a key.
   */
  SecretKey key(String purpose) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return new SecretKeySpec(mac.doFinal(purpose.getBytes(StandardCharsets.UTF_8)), "HmacSHA256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
