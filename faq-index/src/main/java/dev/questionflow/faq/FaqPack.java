package dev.questionflow.faq;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A loaded FAQ pack (see {@code faq-index/README.md} for the folder format).
 *
 * @param language "en" or "zh"
 * @param attribution text to show/keep wherever the pack or anything built from it is shipped
 * @param intentRules evaluated in order, the first matching rule wins (see {@link IntentRules})
 */
public record FaqPack(
    String id,
    String name,
    String language,
    String attribution,
    List<FaqEntry> entries,
    List<IntentRule> intentRules) {

  public FaqPack {
    Objects.requireNonNull(id, "id");
    language = language == null ? "en" : language;
    entries = entries == null ? List.of() : List.copyOf(entries);
    intentRules = intentRules == null ? List.of() : List.copyOf(intentRules);
  }

  /** The entry with this id, if any. */
  public Optional<FaqEntry> entry(String id) {
    if (id == null) {
      return Optional.empty();
    }
    for (FaqEntry e : entries) {
      if (e.id().equals(id)) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }
}
