package dev.questionflow.faq.cli;

import dev.questionflow.faq.FaqMatcher;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.KeywordFaqIndex;
import dev.questionflow.faq.SemanticFaqIndex;
import java.io.PrintStream;
import java.nio.file.Path;

/** Opens the matcher of a level over a pack, with its index stored under the index directory. */
final class Matchers {

  /** A matcher and what must be closed with it. */
  record Opened(FaqMatcher matcher, AutoCloseable resource) implements AutoCloseable {
    @Override
    public void close() {
      try {
        resource.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing the index failed", e);
      }
    }
  }

  private Matchers() {}

  /**
   * The layout the app uses too: {@code <indexDir>/<pack>/keyword} and {@code
   * <indexDir>/<pack>/semantic}.
   */
  static Opened open(FaqPack pack, String level, Path indexDir, PrintStream log) {
    Path packDir = indexDir.resolve(pack.id());
    if ("keyword".equals(level)) {
      KeywordFaqIndex keyword = KeywordFaqIndex.open(pack, packDir.resolve("keyword"));
      return new Opened(keyword, keyword);
    }
    SemanticFaqIndex semantic = SemanticFaqIndex.open(pack, packDir);
    return new Opened(semantic, semantic);
  }
}
