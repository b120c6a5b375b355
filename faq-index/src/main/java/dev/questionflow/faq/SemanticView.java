package dev.questionflow.faq;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one semantic search reads: the stored index, or it with a {@link FaqOverlay}'s vectors laid
 * over it ({@link OverlayIndex}). Swapped whole by {@link SemanticFaqIndex#apply}.
 *
 * @param classifier trained on the pack's entries when the index was written (the same in every
 *     view: it gives the overlay's new entries no probability, they are found by the kNN vote and
 *     BM25)
 * @param classIds the classifier's classes (the pack's entries), then the overlay's new entries
 * @param docClass the class of each document, {@link Fusion#OUT_OF_SCOPE} for the out-of-scope
 *     examples and the classifier's document
 * @param overlay {@link FaqOverlay#EMPTY} for the pack's view
 * @param overlayIndex null for the pack's view
 * @param overlayVectors embeddings of the overlay's texts, so that laying the next overlay embeds
 *     only what is new
 * @param revision moved by every applied overlay (the match cache's key)
 */
record SemanticView(
    IndexSearcher searcher,
    SoftmaxClassifier classifier,
    String[] classIds,
    Map<String, Integer> classIndex,
    int[] docClass,
    Map<String, FaqEntry> entries,
    FaqOverlay overlay,
    OverlayIndex overlayIndex,
    Map<String, float[]> overlayVectors,
    long revision) {

  private static final Logger log = LoggerFactory.getLogger(SemanticView.class);

  /** The pack's index as stored, with no overlay: reads the classifier and its classes. */
  static SemanticView ofPack(DirectoryReader stored, FaqPack pack) throws IOException {
    IndexSearcher searcher = new IndexSearcher(stored);
    TopDocs clf =
        searcher.search(
            new TermQuery(
                new Term(SemanticIndexWriter.F_KIND, SemanticIndexWriter.KIND_CLASSIFIER)),
            1);
    if (clf.scoreDocs.length == 0) {
      throw new IOException("semantic index has no classifier document");
    }
    Document clfDoc = searcher.storedFields().document(clf.scoreDocs[0].doc);
    SoftmaxClassifier classifier =
        SoftmaxClassifier.fromBytes(clfDoc.getBinaryValue(SemanticIndexWriter.F_CLASSIFIER).bytes);
    String[] classIds = clfDoc.get(SemanticIndexWriter.F_CLASSES).split("\n", -1);
    Map<String, Integer> idx = new LinkedHashMap<>();
    for (int i = 0; i < classIds.length; i++) {
      idx.put(classIds[i], i);
    }
    int[] docClass = docClasses(stored, idx);
    Map<String, FaqEntry> byId = new LinkedHashMap<>();
    pack.entries().forEach(e -> byId.put(e.id(), e));
    return new SemanticView(
        searcher,
        classifier,
        classIds,
        Map.copyOf(idx),
        docClass,
        Map.copyOf(byId),
        FaqOverlay.EMPTY,
        null,
        Map.of(),
        0);
  }

  /**
   * This view (the pack's) with {@code overlay} laid over it: the overlay's entries and phrasings
   * embedded (only the texts {@code current} did not have) into a small vector index in memory that
   * kNN searches together with the stored one.
   *
   * @param current the view applied now (its vectors are reused, its revision moved)
   * @param live the pack with the overlay applied ({@link FaqOverlay#applyTo})
   */
  SemanticView withOverlay(
      SemanticView current, FaqOverlay overlay, FaqPack live, Embedder embedder)
      throws IOException {
    List<String> texts = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (FaqEntry e : overlay.entries()) {
      for (String t : SemanticIndexWriter.texts(e)) {
        texts.add(t);
        ids.add(e.id());
      }
    }
    for (FaqOverlay.Phrasing p : overlay.phrasings()) {
      if (!p.text().isBlank()) {
        texts.add(p.text().strip());
        ids.add(p.faqId());
      }
    }
    Map<String, float[]> vectors = new HashMap<>();
    List<String> missing = new ArrayList<>();
    for (String t : texts) {
      float[] known = current.overlayVectors().get(t);
      if (known != null) {
        vectors.put(t, known);
      } else if (!vectors.containsKey(t) && !missing.contains(t)) {
        missing.add(t);
      }
    }
    if (!missing.isEmpty()) {
      List<float[]> embedded = embedder.embedAll(missing);
      for (int i = 0; i < missing.size(); i++) {
        vectors.put(missing.get(i), embedded.get(i));
      }
    }
    String[] moreClassIds = Arrays.copyOf(classIds, classIds.length + overlay.entries().size());
    Map<String, Integer> moreClassIndex = new LinkedHashMap<>(classIndex);
    for (int i = 0; i < overlay.entries().size(); i++) {
      String id = overlay.entries().get(i).id();
      moreClassIds[classIds.length + i] = id;
      moreClassIndex.put(id, classIds.length + i);
    }
    List<Document> docs = new ArrayList<>(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      docs.add(SemanticIndexWriter.vectorDoc(ids.get(i), vectors.get(texts.get(i))));
    }
    OverlayIndex learned =
        OverlayIndex.over(searcher.getIndexReader(), new IndexWriterConfig(), docs);
    int[] added = docClasses(learned.learned(), moreClassIndex);
    int[] moreDocClass = Arrays.copyOf(docClass, docClass.length + added.length);
    System.arraycopy(added, 0, moreDocClass, docClass.length, added.length);
    Map<String, FaqEntry> liveEntries = new LinkedHashMap<>();
    live.entries().forEach(e -> liveEntries.put(e.id(), e));
    log.debug(
        "semantic FAQ index of pack {}: overlay of {} entries and {} phrasings applied ({} embedded)",
        live.id(),
        overlay.entries().size(),
        overlay.phrasings().size(),
        missing.size());
    return new SemanticView(
        new IndexSearcher(learned.both()),
        classifier,
        moreClassIds,
        Map.copyOf(moreClassIndex),
        moreDocClass,
        Map.copyOf(liveEntries),
        overlay,
        learned,
        Map.copyOf(vectors),
        current.revision() + 1);
  }

  /** The same view under another revision (going back to the pack's view moves the revision). */
  SemanticView withRevision(long next) {
    return new SemanticView(
        searcher,
        classifier,
        classIds,
        classIndex,
        docClass,
        entries,
        overlay,
        overlayIndex,
        overlayVectors,
        next);
  }

  private static int[] docClasses(IndexReader r, Map<String, Integer> classIndex)
      throws IOException {
    int[] docClass = new int[r.maxDoc()];
    Arrays.fill(docClass, Fusion.OUT_OF_SCOPE);
    StoredFields stored = r.storedFields();
    for (int d = 0; d < r.maxDoc(); d++) {
      String id =
          stored.document(d, Set.of(SemanticIndexWriter.F_ID)).get(SemanticIndexWriter.F_ID);
      if (id != null) {
        docClass[d] = classIndex.getOrDefault(id, Fusion.OUT_OF_SCOPE);
      }
    }
    return docClass;
  }
}
