package dev.questionflow.faq;

import java.util.Optional;

/** Regex intent rules of a pack: the fallback of the intent stage. */
public final class IntentRules {

  /** Longer texts are cut to this many characters before matching (keeps regex time bounded). */
  static final int MAX_TEXT_CHARS = 2000;

  private IntentRules() {}

  /**
   * The intent of the first rule (in pack order) with a pattern found in {@code text}; empty when
   * none.
   */
  public static Optional<String> match(FaqPack pack, String text) {
    if (pack == null || text == null || text.isBlank()) {
      return Optional.empty();
    }
    String t = text.length() > MAX_TEXT_CHARS ? text.substring(0, MAX_TEXT_CHARS) : text;
    for (IntentRule rule : pack.intentRules()) {
      if (rule.matches(t)) {
        return Optional.of(rule.intent());
      }
    }
    return Optional.empty();
  }
}
