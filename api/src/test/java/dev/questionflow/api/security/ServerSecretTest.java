package dev.questionflow.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated server secret under {@code <data dir>/secrets}: made owner-only, and read only when
 * it is still what the app made (a regular file of its user, mode 600); what the operator gives in
 * the environment is taken as given.
 */
class ServerSecretTest {

  @TempDir Path dataDir;

  /** The user this test (and so the app in it) runs as: the owner of a file it makes. */
  private int ownUid() throws Exception {
    Path probe = Files.createTempFile(dataDir, "uid", ".probe");
    try {
      return (Integer) Files.getAttribute(probe, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    } finally {
      Files.delete(probe);
    }
  }

  private static String freshSecret() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getEncoder().encodeToString(bytes) + "\n";
  }

  private Path secretFile() {
    return dataDir.resolve(ServerSecret.FILE);
  }

  @Test
  void aGeneratedSecretIsOwnerOnlyInAnOwnerOnlyDirectoryAndKeptAcrossStarts() throws Exception {
    ServerSecret first = ServerSecret.of(null, dataDir, ownUid());
    Path file = secretFile();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(file.getParent(), LinkOption.NOFOLLOW_LINKS)))
        .isEqualTo("rwx------");
    ServerSecret again = ServerSecret.of(null, dataDir, ownUid());
    assertThat(again.mac("test", "a")).isEqualTo(first.mac("test", "a"));
  }

  @Test
  void aSymlinkInPlaceOfTheGeneratedSecretStopsTheStart() throws Exception {
    Path elsewhere = dataDir.resolve("planted.secret");
    Files.writeString(elsewhere, freshSecret());
    Files.setPosixFilePermissions(elsewhere, PosixFilePermissions.fromString("rw-------"));
    Files.createDirectories(secretFile().getParent());
    Files.createSymbolicLink(secretFile(), elsewhere);

    assertThatThrownBy(() -> ServerSecret.of(null, dataDir, ownUid()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(secretFile().toAbsolutePath().toString())
        .hasMessageContaining("symbolic link")
        .hasMessageContaining("WORKFLOW_ID_SECRET");
  }

  @Test
  void aGeneratedSecretOthersMayReadStopsTheStart() throws Exception {
    Files.createDirectories(secretFile().getParent());
    Files.writeString(secretFile(), freshSecret());
    Files.setPosixFilePermissions(secretFile(), PosixFilePermissions.fromString("rw-r--r--"));

    assertThatThrownBy(() -> ServerSecret.of(null, dataDir, ownUid()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("rw-r--r--")
        .hasMessageContaining("chmod 600");
  }

  @Test
  void aGeneratedSecretOfAnotherUserStopsTheStart() throws Exception {
    Files.createDirectories(secretFile().getParent());
    Files.writeString(secretFile(), freshSecret());
    Files.setPosixFilePermissions(secretFile(), PosixFilePermissions.fromString("rw-------"));
    int otherUser = ownUid() + 1; // the app running as someone else than the file's owner

    assertThatThrownBy(() -> ServerSecret.of(null, dataDir, otherUser))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("owned by uid " + ownUid());
  }

  @Test
  void aDirectoryInPlaceOfTheSecretStopsTheStart() throws Exception {
    Files.createDirectories(secretFile());

    assertThatThrownBy(() -> ServerSecret.of(null, dataDir, ownUid()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not a regular file");
  }

  @Test
  void theOperatorsSecretIsTakenAsGivenAndTheFileNotLookedAt() throws Exception {
    Files.createDirectories(secretFile().getParent());
    Files.createSymbolicLink(secretFile(), dataDir.resolve("nowhere"));

    ServerSecret given = ServerSecret.of("an-operator-secret-0123456789", dataDir, ownUid() + 1);
    assertThat(given.mac("test", "a"))
        .isEqualTo(ServerSecret.of("an-operator-secret-0123456789", dataDir, 0).mac("test", "a"));
  }
}
