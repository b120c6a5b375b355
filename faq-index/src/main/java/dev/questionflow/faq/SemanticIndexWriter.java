package dev.questionflow.faq;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a semantic index: every phrasing of every entry embedded as a vector document (kNN), every
 * out-of-scope example of the pack as a vector document of no entry, plus one document holding the
 * softmax classifier trained on the phrasings' vectors, with the fingerprint in the commit. The
 * overlay's vectors ({@link SemanticView}) are documents of the same kind.
 */
final class SemanticIndexWriter {

  private static final Logger log = LoggerFactory.getLogger(SemanticIndexWriter.class);

  static final String F_ID = "faq_id";
  static final String F_VECTOR = "vector";
  static final String F_KIND = "kind";
  static final String F_CLASSIFIER = "classifier";
  static final String F_CLASSES = "classes";
  static final String KIND_CLASSIFIER = "classifier";
  static final String FINGERPRINT_KEY = "questionflow.faq.semantic.fingerprint";

  /** Bump when the document layout, classifier training or embedding input changes. */
  static final String INDEX_FORMAT = "faq-semantic/2";

  private SemanticIndexWriter() {}

  /** The texts embedded for an entry: the standard question and every distinct phrasing. */
  static List<String> texts(FaqEntry e) {
    Set<String> texts = new LinkedHashSet<>();
    texts.add(e.question().strip());
    for (String p : e.phrasings()) {
      if (!p.isBlank()) {
        texts.add(p.strip());
      }
    }
    return new ArrayList<>(texts);
  }

  /** One embedded text of an entry, as the kNN search finds it. */
  static Document vectorDoc(String faqId, float[] vector) {
    Document d = outOfScopeDoc(vector);
    d.add(new StringField(F_ID, faqId, Field.Store.YES));
    return d;
  }

  /** An out-of-scope example: found by the kNN search, belonging to no entry (no id). */
  static Document outOfScopeDoc(float[] vector) {
    Document d = new Document();
    d.add(new KnnFloatVectorField(F_VECTOR, vector, VectorSimilarityFunction.DOT_PRODUCT));
    return d;
  }

  static void write(
      FaqPack pack, Embedder embedder, SemanticSettings settings, Directory dir, String fingerprint)
      throws IOException {
    List<String> texts = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    List<String> classIds = new ArrayList<>();
    for (FaqEntry e : pack.entries()) {
      classIds.add(e.id());
      for (String t : texts(e)) {
        texts.add(t);
        ids.add(e.id());
      }
    }
    long t0 = System.nanoTime();
    List<float[]> vectors = embedder.embedAll(texts);
    List<float[]> outOfScope = embedder.embedAll(pack.outOfScope());
    long t1 = System.nanoTime();
    Map<String, Integer> classIndex = new LinkedHashMap<>();
    for (int i = 0; i < classIds.size(); i++) {
      classIndex.put(classIds.get(i), i);
    }
    int[] y = new int[ids.size()];
    for (int i = 0; i < y.length; i++) {
      y[i] = classIndex.get(ids.get(i));
    }
    SoftmaxClassifier clf =
        SoftmaxClassifier.train(vectors, y, classIds.size(), settings.classifier());
    long t2 = System.nanoTime();
    log.info(
        "Semantic FAQ index for pack {}: embedded {} texts with {} in {} ms, trained classifier in {} ms",
        pack.id(),
        texts.size() + outOfScope.size(),
        embedder.modelId(),
        (t1 - t0) / 1_000_000,
        (t2 - t1) / 1_000_000);
    IndexWriterConfig cfg =
        new IndexWriterConfig()
            .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
            .setCommitOnClose(false);
    try (IndexWriter w = new IndexWriter(dir, cfg)) {
      for (int i = 0; i < texts.size(); i++) {
        w.addDocument(vectorDoc(ids.get(i), vectors.get(i)));
      }
      for (float[] v : outOfScope) {
        w.addDocument(outOfScopeDoc(v));
      }
      Document c = new Document();
      c.add(new StringField(F_KIND, KIND_CLASSIFIER, Field.Store.NO));
      c.add(new StoredField(F_CLASSIFIER, clf.toBytes()));
      c.add(new StoredField(F_CLASSES, String.join("\n", classIds)));
      w.addDocument(c);
      w.forceMerge(1); // one HNSW graph: faster and deterministic searches
      w.setLiveCommitData(Map.of(FINGERPRINT_KEY, fingerprint).entrySet());
      w.commit();
    }
  }

  /**
   * SHA-256 over format, Lucene version, model id, classifier training parameters and the pack
   * content.
   */
  static String fingerprint(FaqPack pack, String modelId, SemanticSettings settings) {
    StoredIndexes.Fingerprint h = new StoredIndexes.Fingerprint();
    h.add(INDEX_FORMAT)
        .add(Version.LATEST.toString())
        .add(modelId)
        .add(settings.classifier().toString());
    h.add(pack.id()).add(pack.language()).add(Integer.toString(pack.entries().size()));
    for (FaqEntry e : pack.entries()) {
      h.add(e.id())
          .add(e.question())
          .add(Integer.toString(e.phrasings().size()))
          .addAll(e.phrasings());
    }
    h.add(Integer.toString(pack.outOfScope().size())).addAll(pack.outOfScope());
    return h.hex();
  }
}
