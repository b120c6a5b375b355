package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the keyword and the semantic index share about indexes stored on disk: one lock per folder,
 * the fingerprint kept in the Lucene commit data, and clearing a folder before a rebuild.
 */
final class StoredIndexes {

  /** What {@link #storedFingerprint} returns for an index that exists but cannot be read. */
  static final String UNREADABLE = "<unreadable>";

  private static final Logger log = LoggerFactory.getLogger(StoredIndexes.class);
  private static final Map<Path, Object> DIR_LOCKS = new ConcurrentHashMap<>();
  private static final String BUILD_LOCK = "questionflow-build.lock";

  private StoredIndexes() {}

  /**
   * The monitor that serialises opening (and rebuilding) the index in one folder within this JVM.
   */
  static Object lockFor(Path folder) {
    return DIR_LOCKS.computeIfAbsent(folder.toAbsolutePath().normalize(), k -> new Object());
  }

  /**
   * The fingerprint stored under {@code key}; null when there is no index, {@link #UNREADABLE} when
   * corrupt.
   */
  static String storedFingerprint(Directory dir, String key) {
    try {
      if (!DirectoryReader.indexExists(dir)) {
        return null;
      }
      try (DirectoryReader r = DirectoryReader.open(dir)) {
        return r.getIndexCommit().getUserData().get(key);
      }
    } catch (IOException | RuntimeException e) {
      log.warn("Stored index in {} is unreadable, rebuilding: {}", dir, e.toString());
      return UNREADABLE;
    }
  }

  /**
   * Removes Lucene's own files (segments_N, _0.cfs, ...) so that a corrupt index cannot block a
   * rebuild.
   */
  static void deleteIndexFiles(Directory dir) throws IOException {
    for (String name : dir.listAll()) {
      if (name.startsWith(IndexFileNames.SEGMENTS)
          || name.startsWith(IndexFileNames.PENDING_SEGMENTS)
          || name.matches(IndexFileNames.CODEC_FILE_PATTERN.pattern())) {
        dir.deleteFile(name);
      }
    }
  }

  /** Writes a whole index into a directory, with the fingerprint in its commit data. */
  @FunctionalInterface
  interface Writer {
    void write(Directory dir, String fingerprint) throws IOException;
  }

  /** Opens the index over its stored directory ({@code rebuilt}: written just now). */
  @FunctionalInterface
  interface Opener<T> {
    T open(Directory dir, boolean rebuilt) throws IOException;
  }

  /**
   * The one way both indexes are stored: opens the index in {@code folder} and reuses it when its
   * stored fingerprint is {@code fingerprint}; otherwise (missing, unreadable, built from other
   * content or another model) clears it and writes it again; then opens it with {@code opener}. The
   * directory is closed here if anything fails. Serialised per folder within this JVM and, by a
   * file lock, across processes: instances that share a data directory and start together would
   * otherwise both find no index and both build it, and the second fails on Lucene's write lock
   * (which guards a writer, not the decision to build).
   *
   * @param what for logs and errors ("FAQ index for pack banking77")
   */
  static <T> T openOrBuild(
      Path folder,
      String fingerprintKey,
      String fingerprint,
      String what,
      Writer writer,
      Opener<T> opener) {
    Path key = folder.toAbsolutePath().normalize();
    if (Files.isDirectory(key) && !Files.isWritable(key)) {
      return openReadOnly(key, fingerprintKey, fingerprint, what, writer, opener);
    }
    synchronized (lockFor(key)) {
      Directory dir = null;
      try (FileChannel ignored = buildLock(key, what)) {
        dir = FSDirectory.open(key);
        String stored = storedFingerprint(dir, fingerprintKey);
        boolean rebuild = !fingerprint.equals(stored);
        if (rebuild && stored != null) {
          deleteIndexFiles(
              dir); // another fingerprint, or unreadable: nothing of it may block the rebuild
        }
        if (rebuild) {
          log.info(
              "Building {} in {} (stored fingerprint {}, wanted {})",
              what,
              key,
              stored,
              fingerprint);
          writer.write(dir, fingerprint);
        } else {
          log.debug("Reusing {} in {}", what, key);
        }
        return opener.open(dir, rebuild); // a failure closes the directory below
      } catch (IOException e) {
        closeQuietly(dir);
        throw new UncheckedIOException("Cannot open " + what + " in " + key, e);
      } catch (RuntimeException e) {
        closeQuietly(dir);
        throw e;
      }
    }
  }

  /**
   * A folder this process cannot write: an index baked into a read-only image (bin/image). Nobody
   * builds there, so no lock is taken; a matching index is opened as it is. One that does not match
   * (an image built from another pack or model) cannot be rebuilt in place: the index is built in
   * memory, as without a folder, and the log says why the start is slow.
   */
  private static <T> T openReadOnly(
      Path folder,
      String fingerprintKey,
      String fingerprint,
      String what,
      Writer writer,
      Opener<T> opener) {
    Directory dir = null;
    try {
      dir = FSDirectory.open(folder);
      String stored = storedFingerprint(dir, fingerprintKey);
      if (fingerprint.equals(stored)) {
        log.info("Opening {} stored read-only in {}", what, folder);
        return opener.open(dir, false);
      }
      dir.close();
      log.warn(
          "{} in read-only {} does not match (stored fingerprint {}, wanted {}): building it in"
              + " memory; bake the image again (bin/image) or point FAQ_INDEX_DIR to a writable"
              + " folder",
          what,
          folder,
          stored,
          fingerprint);
      dir = new ByteBuffersDirectory();
      writer.write(dir, fingerprint);
      return opener.open(dir, true);
    } catch (IOException e) {
      closeQuietly(dir);
      throw new UncheckedIOException("Cannot open " + what + " in " + folder, e);
    } catch (RuntimeException e) {
      closeQuietly(dir);
      throw e;
    }
  }

  /**
   * The folder's build lock, held until the index is open (closing the channel releases it):
   * another process building the same folder is waited for, and its index is then reused.
   */
  private static FileChannel buildLock(Path folder, String what) throws IOException {
    Files.createDirectories(folder);
    FileChannel channel =
        FileChannel.open(
            folder.resolve(BUILD_LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      if (channel.tryLock() == null) {
        log.info("Waiting for another process that builds {} in {}", what, folder);
        channel.lock();
      }
      return channel;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * SHA-256 over strings, each length-prefixed (and null marked), so no two different lists of
   * parts give the same input: the one fingerprint encoding of both indexes.
   */
  static final class Fingerprint {
    private final MessageDigest md;

    Fingerprint() {
      try {
        md = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is part of every JDK", e);
      }
    }

    Fingerprint add(String s) {
      if (s == null) {
        md.update((byte) 0);
        return this;
      }
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      md.update((byte) 1);
      md.update(ByteBuffer.allocate(4).putInt(b.length).array());
      md.update(b);
      return this;
    }

    Fingerprint addAll(Iterable<String> parts) {
      parts.forEach(this::add);
      return this;
    }

    String hex() {
      return HexFormat.of().formatHex(md.digest());
    }
  }

  static void closeQuietly(AutoCloseable... closeables) {
    for (AutoCloseable c : closeables) {
      if (c == null) {
        continue;
      }
      try {
        c.close();
      } catch (Exception e) {
        log.debug("close failed", e);
      }
    }
  }
}
