package dev.questionflow.faq;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.Version;

/**
 * Writes a keyword index: one document per standard question, phrasing and keyword list of every
 * entry (analysed text, the entry's id stored), with the fingerprint of what it was built from in
 * the commit. The overlay's documents ({@link KeywordView}) are made the same way.
 */
final class KeywordIndexWriter {

  static final String F_ID = "faq_id";
  static final String F_TEXT = "text";
  static final String F_KIND = "kind";
  static final String FINGERPRINT_KEY = "questionflow.faq.fingerprint";

  /** Bump when the document layout or analysis changes, so stored indexes are rebuilt. */
  static final String INDEX_FORMAT =
      "faq-index/2"; // 2: zh analysed with SmartChineseAnalyzer (was CJKAnalyzer)

  private KeywordIndexWriter() {}

  static void write(
      FaqPack pack, KeywordSettings settings, Analyzer analyzer, Directory dir, String fingerprint)
      throws IOException {
    IndexWriterConfig cfg =
        new IndexWriterConfig(analyzer)
            .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
            .setSimilarity(settings.similarity())
            .setCommitOnClose(false);
    try (IndexWriter w = new IndexWriter(dir, cfg)) {
      for (FaqEntry e : pack.entries()) {
        for (Document d : entryDocs(e)) {
          w.addDocument(d);
        }
      }
      w.setLiveCommitData(Map.of(FINGERPRINT_KEY, fingerprint).entrySet());
      w.commit();
    }
  }

  /** An entry's documents: its question, each phrasing, its keywords (when it has any). */
  static List<Document> entryDocs(FaqEntry e) {
    List<Document> docs = new ArrayList<>();
    docs.add(doc(e.id(), "question", e.question()));
    for (String p : e.phrasings()) {
      docs.add(doc(e.id(), "phrasing", p));
    }
    if (!e.keywords().isEmpty()) {
      docs.add(doc(e.id(), "keywords", String.join(" ", e.keywords())));
    }
    return docs;
  }

  /** A phrasing learned while the service runs (an overlay's). */
  static Document learnedDoc(FaqOverlay.Phrasing p) {
    return doc(p.faqId(), "learned", p.text());
  }

  private static Document doc(String id, String kind, String text) {
    Document d = new Document();
    d.add(new StringField(F_ID, id, Field.Store.YES));
    d.add(new StoredField(F_KIND, kind));
    d.add(new TextField(F_TEXT, text, Field.Store.NO));
    return d;
  }

  /**
   * SHA-256 over the index format, the Lucene version, the analysis settings and the whole pack
   * content.
   */
  static String fingerprint(FaqPack pack, KeywordSettings settings) {
    StoredIndexes.Fingerprint h = new StoredIndexes.Fingerprint();
    h.add(INDEX_FORMAT)
        .add(Version.LATEST.toString())
        .add("chatStopwords=" + settings.chatStopwords())
        .add(settings.chatStopwords() ? KeywordAnalysis.stopwordsText(pack.language()) : null);
    h.add(pack.id()).add(pack.language()).add(pack.name()).add(pack.attribution());
    h.add(Integer.toString(pack.entries().size()));
    for (FaqEntry e : pack.entries()) {
      h.add(e.id()).add(e.question()).add(e.answer()).add(e.category());
      h.add(Integer.toString(e.phrasings().size())).addAll(e.phrasings());
      h.add(Integer.toString(e.keywords().size())).addAll(e.keywords());
    }
    return h.hex();
  }
}
