package dev.questionflow.faq;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one keyword search reads: the stored index, or it with a {@link FaqOverlay} laid over it
 * ({@link OverlayIndex}). Swapped whole by {@link KeywordFaqIndex#apply} so a search never sees
 * half an update.
 *
 * @param reader the stored index, or it and the overlay's in-memory index under one {@link
 *     org.apache.lucene.index.MultiReader} (statistics such as IDF and average length span both)
 * @param docFaqId each document's FAQ entry ID, read once when the view is made: mapping a hit to
 *     its entry then costs an array read instead of decompressing a block of stored fields per hit
 * @param vocabulary analyzed terms of each entry's question, phrasings and keywords
 * @param overlay {@link FaqOverlay#EMPTY} for the pack's view
 * @param overlayIndex null for the pack's view
 * @param docsPerEntry how many documents each entry has (its question, phrasings, keywords)
 */
record KeywordView(
    IndexReader reader,
    IndexSearcher searcher,
    String[] docFaqId,
    CollectionStatistics textStats,
    Map<String, Set<String>> vocabulary,
    Map<String, FaqEntry> entries,
    FaqOverlay overlay,
    OverlayIndex overlayIndex,
    Map<String, Integer> docsPerEntry) {

  private static final Logger log = LoggerFactory.getLogger(KeywordView.class);

  /** The pack's index as stored, with no overlay. */
  static KeywordView ofPack(
      DirectoryReader stored, FaqPack pack, Analyzer analyzer, KeywordSettings settings)
      throws IOException {
    Map<String, FaqEntry> byId = new HashMap<>();
    for (FaqEntry e : pack.entries()) {
      byId.put(e.id(), e);
    }
    IndexSearcher searcher = searcher(stored, settings);
    Map<String, Set<String>> vocab = new HashMap<>();
    for (FaqEntry e : pack.entries()) {
      vocab.put(e.id(), Set.copyOf(KeywordAnalysis.entryTerms(analyzer, e)));
    }
    String[] ids = faqIdsByDoc(stored);
    return new KeywordView(
        stored,
        searcher,
        ids,
        searcher.collectionStatistics(KeywordIndexWriter.F_TEXT),
        Map.copyOf(vocab),
        Map.copyOf(byId),
        FaqOverlay.EMPTY,
        null,
        docsPerEntry(ids));
  }

  /**
   * This view (the pack's) with {@code overlay} laid over it: the overlay's entries and phrasings
   * are indexed in memory; only the vocabulary of the entries it touches is analysed again.
   *
   * @param live the pack with the overlay applied ({@link FaqOverlay#applyTo})
   */
  KeywordView withOverlay(
      FaqOverlay overlay, FaqPack live, Analyzer analyzer, KeywordSettings settings)
      throws IOException {
    IndexWriterConfig cfg =
        new IndexWriterConfig(analyzer)
            .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
            .setSimilarity(settings.similarity());
    List<Document> docs = new ArrayList<>();
    for (FaqEntry e : overlay.entries()) {
      docs.addAll(KeywordIndexWriter.entryDocs(e));
    }
    for (FaqOverlay.Phrasing p : overlay.phrasings()) {
      docs.add(KeywordIndexWriter.learnedDoc(p));
    }
    OverlayIndex learned = OverlayIndex.over(reader, cfg, docs);
    IndexSearcher searcher = searcher(learned.both(), settings);
    String[] added = faqIdsByDoc(learned.learned());
    String[] ids = new String[docFaqId.length + added.length];
    System.arraycopy(docFaqId, 0, ids, 0, docFaqId.length);
    System.arraycopy(added, 0, ids, docFaqId.length, added.length);
    Map<String, Set<String>> vocab = new HashMap<>(vocabulary);
    Map<String, FaqEntry> liveEntries = new HashMap<>();
    for (FaqEntry e : live.entries()) {
      liveEntries.put(e.id(), e);
    }
    for (String id : overlay.touchedIds()) {
      vocab.put(id, Set.copyOf(KeywordAnalysis.entryTerms(analyzer, liveEntries.get(id))));
    }
    log.debug(
        "keyword FAQ index of pack {}: overlay of {} entries and {} phrasings applied",
        live.id(),
        overlay.entries().size(),
        overlay.phrasings().size());
    return new KeywordView(
        learned.both(),
        searcher,
        ids,
        searcher.collectionStatistics(KeywordIndexWriter.F_TEXT),
        Map.copyOf(vocab),
        Map.copyOf(liveEntries),
        overlay,
        learned,
        docsPerEntry(ids));
  }

  private static IndexSearcher searcher(IndexReader r, KeywordSettings settings) {
    IndexSearcher s = new IndexSearcher(r);
    s.setSimilarity(settings.similarity());
    return s;
  }

  private static String[] faqIdsByDoc(IndexReader r) throws IOException {
    String[] ids = new String[r.maxDoc()];
    var stored = r.storedFields();
    for (int doc = 0; doc < ids.length; doc++) {
      ids[doc] = stored.document(doc, Set.of(KeywordIndexWriter.F_ID)).get(KeywordIndexWriter.F_ID);
    }
    return ids;
  }

  private static Map<String, Integer> docsPerEntry(String[] docFaqId) {
    Map<String, Integer> counts = new HashMap<>();
    for (String id : docFaqId) {
      if (id != null) {
        counts.merge(id, 1, Integer::sum);
      }
    }
    return Map.copyOf(counts);
  }
}
