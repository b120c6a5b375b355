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
 * @param outOfScope questions the pack must not answer, written the way customers ask off-topic
 *     things ({@code out_of_scope.txt}): the semantic level abstains on a question nearer to one of
 *     them than to the pack's phrasings ({@link SemanticSettings#minOutOfScopeGap})
 * @param encoder the encoder tuned to this pack that its {@code pack.json} names, or null: the
 *     language's default model ({@link FaqEmbeddingModel#defaultFor})
 */
public record FaqPack(
    String id,
    String name,
    String language,
    String attribution,
    List<FaqEntry> entries,
    List<IntentRule> intentRules,
    List<String> outOfScope,
    PackEncoder encoder) {

  public FaqPack {
    Objects.requireNonNull(id, "id");
    language = language == null ? "en" : language;
    entries = entries == null ? List.of() : List.copyOf(entries);
    intentRules = intentRules == null ? List.of() : List.copyOf(intentRules);
    outOfScope = outOfScope == null ? List.of() : List.copyOf(outOfScope);
  }

  /** A pack that uses its language's default encoder. */
  public FaqPack(
      String id,
      String name,
      String language,
      String attribution,
      List<FaqEntry> entries,
      List<IntentRule> intentRules,
      List<String> outOfScope) {
    this(id, name, language, attribution, entries, intentRules, outOfScope, null);
  }

  /** A pack without out-of-scope examples. */
  public FaqPack(
      String id,
      String name,
      String language,
      String attribution,
      List<FaqEntry> entries,
      List<IntentRule> intentRules) {
    this(id, name, language, attribution, entries, intentRules, List.of());
  }

  /** The same pack with these entries (its out-of-scope examples and rules kept). */
  public FaqPack withEntries(List<FaqEntry> replaced) {
    return new FaqPack(id, name, language, attribution, replaced, intentRules, outOfScope, encoder);
  }

  /** The same pack with the language's default encoder instead of its tuned one. */
  public FaqPack withDefaultEncoder() {
    return new FaqPack(id, name, language, attribution, entries, intentRules, outOfScope, null);
  }

  /** Id of the encoder this pack's vectors come from: its tuned one, or the language default. */
  public String encoderId() {
    return encoder != null ? encoder.id() : FaqEmbeddingModel.defaultFor(language).id();
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
