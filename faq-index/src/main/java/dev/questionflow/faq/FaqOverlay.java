package dev.questionflow.faq;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What was added to a pack while the service runs (phrasings and entries that staff learned from
 * tickets), laid over the indexes built from the pack instead of rebuilding them: {@link
 * KeywordFaqIndex#apply} and {@link SemanticFaqIndex#apply} keep it in a small in-memory index
 * beside the stored one ({@link OverlayIndex}), so learned text, which is customer text, is never
 * written to disk.
 *
 * @param entries new entries, in the order they were added (ids unique, not in the pack)
 * @param phrasings new phrasings of existing or new entries
 */
public record FaqOverlay(List<FaqEntry> entries, List<Phrasing> phrasings) {

  /** Nothing learned: the pack as loaded. */
  public static final FaqOverlay EMPTY = new FaqOverlay(List.of(), List.of());

  /** A phrasing of the entry {@code faqId}. */
  public record Phrasing(String faqId, String text) {
    public Phrasing {
      Objects.requireNonNull(faqId, "faqId");
      Objects.requireNonNull(text, "text");
    }
  }

  public FaqOverlay {
    entries = entries == null ? List.of() : List.copyOf(entries);
    phrasings = phrasings == null ? List.of() : List.copyOf(phrasings);
  }

  public boolean isEmpty() {
    return entries.isEmpty() && phrasings.isEmpty();
  }

  /**
   * The pack with the new entries appended and each phrasing appended to its entry's phrasings.
   *
   * @throws IllegalArgumentException when a new entry's id is taken or a phrasing names no entry
   */
  public FaqPack applyTo(FaqPack base) {
    if (isEmpty()) {
      return base;
    }
    Map<String, FaqEntry> byId = new LinkedHashMap<>();
    for (FaqEntry e : base.entries()) {
      byId.put(e.id(), e);
    }
    for (FaqEntry e : entries) {
      if (byId.putIfAbsent(e.id(), e) != null) {
        throw new IllegalArgumentException(
            "entry '" + e.id() + "' already exists in pack " + base.id());
      }
    }
    Map<String, List<String>> added = new LinkedHashMap<>();
    for (Phrasing p : phrasings) {
      if (!byId.containsKey(p.faqId())) {
        throw new IllegalArgumentException("no entry '" + p.faqId() + "' in pack " + base.id());
      }
      added.computeIfAbsent(p.faqId(), id -> new ArrayList<>()).add(p.text());
    }
    List<FaqEntry> live = new ArrayList<>(byId.size());
    for (FaqEntry e : byId.values()) {
      List<String> more = added.get(e.id());
      if (more == null) {
        live.add(e);
      } else {
        List<String> phrasings = new ArrayList<>(e.phrasings());
        phrasings.addAll(more);
        live.add(
            new FaqEntry(e.id(), e.question(), e.answer(), phrasings, e.keywords(), e.category()));
      }
    }
    return base.withEntries(live);
  }

  /** The ids of the entries this overlay touches (new entries and entries with new phrasings). */
  Set<String> touchedIds() {
    Set<String> ids = new HashSet<>();
    entries.forEach(e -> ids.add(e.id()));
    phrasings.forEach(p -> ids.add(p.faqId()));
    return ids;
  }
}
