package dev.questionflow.faq;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;

/**
 * A {@link FaqOverlay} laid over a stored index, the way both indexes do it: the overlay's
 * documents go into a small index in memory, searched together with the stored one, so the stored
 * index is never rebuilt for what was learned and learned text (customer text) never goes to disk.
 *
 * @param learned the overlay's documents
 * @param both the stored index's documents, then the overlay's (so a document number below the
 *     stored index's {@code maxDoc} is a stored one); statistics such as IDF span both
 */
record OverlayIndex(DirectoryReader learned, MultiReader both) implements AutoCloseable {

  /**
   * Writes {@code documents}, in this order, into memory and puts them behind {@code stored}.
   *
   * @param config the analysis and similarity of the stored index
   */
  static OverlayIndex over(IndexReader stored, IndexWriterConfig config, List<Document> documents)
      throws IOException {
    Directory dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, config)) {
      for (Document d : documents) {
        w.addDocument(d);
      }
      w.commit();
    }
    DirectoryReader learned = DirectoryReader.open(dir);
    // the stored index stays open for the next overlay: the MultiReader must not close it; a
    // replaced overlay's reader is left to the garbage collector (in memory, no file handles), as a
    // search may still be running on it
    return new OverlayIndex(learned, new MultiReader(new IndexReader[] {stored, learned}, false));
  }

  /** Closes the overlay's documents; the stored index is its owner's to close. */
  @Override
  public void close() throws IOException {
    learned.close();
  }
}
