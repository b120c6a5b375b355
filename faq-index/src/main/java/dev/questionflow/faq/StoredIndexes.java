package dev.questionflow.faq;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.store.Directory;
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
