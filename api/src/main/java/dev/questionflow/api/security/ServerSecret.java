package dev.questionflow.api.security;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's own secret ({@code WORKFLOW_ID_SECRET}): keys the workflow-ID HMAC and signs the
 * chat page's web sessions, each with its own derived key. When unset it is generated once and kept
 * in {@code <data dir>/secrets/workflow-id.secret} (owner-only, in an owner-only directory, and
 * read only while it still is), so IDs stay the same across restarts; instances that share
 * questions must share the secret, so production sets it explicitly.
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
    return of(configured, dataDir, appUid());
  }

  /**
   * @param appUid the user the app runs as (-1: unknown, its files' owner is not checked)
   */
  static ServerSecret of(String configured, Path dataDir, long appUid) {
    if (configured != null && !configured.isBlank()) {
      return new ServerSecret(
          configured.getBytes(StandardCharsets.UTF_8)); // the operator's, as given
    }
    Path file = dataDir.resolve(FILE).toAbsolutePath();
    try {
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        generate(file);
      }
      checkGenerated(file, appUid);
      byte[] stored;
      try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
        stored =
            Base64.getDecoder()
                .decode(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim());
      }
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
   * The generated secret is used only while it is what this app wrote: a regular file (not a link
   * someone put in its place to make the app use, or reveal through its IDs, a key of their
   * choosing), of the app's own user, readable by nobody else. A secret the operator mounts is
   * given through {@code WORKFLOW_ID_SECRET} and taken as given.
   */
  private static void checkGenerated(Path file, long appUid) throws IOException {
    BasicFileAttributes attributes =
        Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (attributes.isSymbolicLink()) {
      throw refused(file, "is a symbolic link");
    }
    if (!attributes.isRegularFile()) {
      throw refused(file, "is not a regular file");
    }
    if (!file.getFileSystem().supportedFileAttributeViews().contains("unix")) {
      log.debug("no owner or mode on this file system; {} is not checked further", file);
      return;
    }
    long owner =
        Integer.toUnsignedLong(
            (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS));
    if (appUid >= 0 && owner != appUid) {
      throw refused(file, "is owned by uid " + owner + ", and this app runs as uid " + appUid);
    }
    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
    if (mode.stream().anyMatch(ServerSecret::beyondOwner)) {
      throw refused(
          file,
          "has mode "
              + PosixFilePermissions.toString(mode)
              + ", so others may read it; if it is still the app's own, chmod 600 "
              + file);
    }
  }

  private static boolean beyondOwner(PosixFilePermission permission) {
    return !permission.name().startsWith("OWNER_");
  }

  private static IllegalStateException refused(Path file, String why) {
    return new IllegalStateException(
        "the generated server secret "
            + file
            + " "
            + why
            + ": it is not used. Remove it to have a new one generated (repeated submits get new"
            + " workflow IDs and chat-page visitors are signed out), or set WORKFLOW_ID_SECRET");
  }

  /** The user this process runs as, or -1 where the JDK cannot say. */
  private static long appUid() {
    try {
      return new com.sun.security.auth.module.UnixSystem().getUid();
    } catch (LinkageError | RuntimeException e) {
      log.debug("the process's uid is unknown here: {}", e.toString());
      return -1;
    }
  }

  /**
   * Written to a temporary file and linked in place, so two instances starting at once keep one
   * secret. The directory is made owner-only.
   */
  private static void generate(Path file) throws IOException {
    Path directory = file.getParent();
    Files.createDirectories(directory.getParent());
    try {
      Files.createDirectory(
          directory,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      Files.setPosixFilePermissions(
          directory, PosixFilePermissions.fromString("rwx------")); // umask
    } catch (FileAlreadyExistsException e) {
      log.debug("{} exists", directory); // another instance's, or made before it was owner-only
    } catch (UnsupportedOperationException e) {
      Files.createDirectories(directory); // no POSIX permissions on this file system
    }
    byte[] fresh = new byte[32];
    new SecureRandom().nextBytes(fresh);
    Path temporary = Files.createTempFile(directory, "secret", ".tmp");
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
