package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances that share a data directory and start together: the second waits for the first's
 * build and reuses it, instead of failing on Lucene's write lock and running without its matcher
 * (what the peers benchmark's two instances did on a fresh checkout).
 */
class StoredIndexesAcrossProcessesTest {

  private static final String KEY = "fingerprint";
  private static final String FINGERPRINT = "fp-1";

  @TempDir Path dataDir;

  @Test
  void anInstanceStartingWhileAnotherBuildsTheIndexWaitsAndReusesIt() throws Exception {
    Process other =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                OtherInstance.class.getName(),
                dataDir.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try (BufferedReader out =
            new BufferedReader(
                new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
        OutputStream in = other.getOutputStream()) {
      assertThat(out.readLine()).isEqualTo("building"); // it holds the folder, mid-build

      AtomicBoolean builtHere = new AtomicBoolean();
      CompletableFuture<Boolean> here = new CompletableFuture<>();
      Thread opening =
          new Thread(
              () -> {
                try {
                  here.complete(openHere(builtHere));
                } catch (Throwable e) {
                  here.completeExceptionally(e);
                }
              });
      opening.start();
      // on until it failed, finished, or waits for the other instance's build lock
      while (opening.isAlive()
          && Arrays.stream(opening.getStackTrace())
              .noneMatch(frame -> frame.getMethodName().equals("buildLock"))) {
        Thread.onSpinWait();
      }
      in.write('\n'); // let the other instance finish its build
      in.flush();
      assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(other.exitValue()).isZero();
      assertThat(here.get(30, TimeUnit.SECONDS)).as("rebuilt here").isFalse();
      assertThat(builtHere).isFalse();
    } finally {
      other.destroyForcibly();
    }
  }

  private Boolean openHere(AtomicBoolean builtHere) {
    return StoredIndexes.openOrBuild(
        dataDir,
        KEY,
        FINGERPRINT,
        "test index",
        (dir, fingerprint) -> {
          builtHere.set(true);
          write(dir, fingerprint);
        },
        (dir, rebuilt) -> {
          try (DirectoryReader reader = DirectoryReader.open(dir)) {
            assertThat(reader.numDocs()).isEqualTo(1);
          } finally {
            dir.close();
          }
          return rebuilt;
        });
  }

  static void write(Directory dir, String fingerprint) throws java.io.IOException {
    try (IndexWriter writer =
        new IndexWriter(
            dir,
            new IndexWriterConfig(new StandardAnalyzer())
                .setOpenMode(IndexWriterConfig.OpenMode.CREATE))) {
      Document doc = new Document();
      doc.add(new StringField("id", "1", Field.Store.YES));
      writer.addDocument(doc);
      writer.setLiveCommitData(Map.of(KEY, fingerprint).entrySet());
      writer.commit();
    }
  }

  /** Another instance: builds the index in the folder it is given, pausing mid-build for stdin. */
  public static final class OtherInstance {
    public static void main(String[] args) throws Exception {
      StoredIndexes.openOrBuild(
          Path.of(args[0]),
          KEY,
          FINGERPRINT,
          "test index",
          (dir, fingerprint) -> {
            try (IndexWriter writer =
                new IndexWriter(
                    dir,
                    new IndexWriterConfig(new StandardAnalyzer())
                        .setOpenMode(IndexWriterConfig.OpenMode.CREATE))) {
              System.out.println("building");
              System.out.flush();
              System.in.read();
              Document doc = new Document();
              doc.add(new StringField("id", "1", Field.Store.YES));
              writer.addDocument(doc);
              writer.setLiveCommitData(Map.of(KEY, fingerprint).entrySet());
              writer.commit();
            }
          },
          (dir, rebuilt) -> {
            dir.close();
            return rebuilt;
          });
    }
  }
}
