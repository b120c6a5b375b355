package dev.questionflow.faq;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A keyword/regex intent rule: the rule matches when any of its patterns is found in the text
 * ({@link java.util.regex.Matcher#find()}).
 */
public record IntentRule(String intent, List<Pattern> patterns) {

  public IntentRule {
    Objects.requireNonNull(intent, "intent");
    patterns = patterns == null ? List.of() : List.copyOf(patterns);
  }

  /** True when one of the patterns is found in {@code text}. */
  boolean matches(CharSequence text) {
    for (Pattern p : patterns) {
      if (p.matcher(text).find()) {
        return true;
      }
    }
    return false;
  }
}
