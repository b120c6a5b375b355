package dev.questionflow.activities.generation;

import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.workflows.generation.ModelFailures;

/**
 * The critical (never skipped) checks of a model answer before a customer sees it, in this order:
 * reject empty and garbled output, an answer that repeats the system prompt ({@link PromptLeaks})
 * and one that links to a host not on the allow-list ({@link LinkAllowList}); then redact personal
 * data ({@link Redactor}). The leak check reads the answer before redaction, so no placeholder can
 * break up a leaked run.
 */
public final class OutputChecks {

  /**
   * The answer failed a check; {@link #type()} is {@link ModelFailures#EMPTY_OUTPUT}, {@link
   * ModelFailures#GARBLED_OUTPUT}, {@link ModelFailures#PROMPT_LEAK} or {@link
   * ModelFailures#FOREIGN_LINK}. The message never quotes the answer (it may hold the canary).
   */
  public static final class Rejected extends RuntimeException {
    private final String type;

    Rejected(String type, String message) {
      super(message, null, false, false);
      this.type = type;
    }

    public String type() {
      return type;
    }
  }

  private final Redactor redactor;
  private final PromptLeaks leaks;
  private final LinkAllowList links;

  public OutputChecks(Safeguards safeguards) {
    this.redactor = safeguards.redactor();
    this.leaks = new PromptLeaks(PromptBuilder.rules(), safeguards.canary());
    this.links = safeguards.links();
  }

  /**
   * @return the answer, stripped and redacted
   * @throws Rejected for empty or garbled output, a prompt leak or a foreign link
   */
  public String check(String text) {
    return redactor.redact(verified(text));
  }

  /**
   * Why the text would be rejected, or null when it passes; the same checks without redaction, for
   * text a person wrote (a learned FAQ answer may name the shop's own phone number).
   */
  public String rejection(String text) {
    try {
      verified(text);
      return null;
    } catch (Rejected rejected) {
      return rejected.getMessage();
    }
  }

  private String verified(String text) {
    if (text == null || text.isBlank()) {
      throw new Rejected(ModelFailures.EMPTY_OUTPUT, "the answer is empty");
    }
    String stripped = text.strip();
    String why = garbledReason(stripped);
    if (why != null) {
      throw new Rejected(ModelFailures.GARBLED_OUTPUT, "the answer is garbled: " + why);
    }
    String leak = leaks.find(stripped);
    if (leak != null) {
      throw new Rejected(ModelFailures.PROMPT_LEAK, "the answer leaks the system prompt: " + leak);
    }
    String foreign = links.firstForeign(stripped);
    if (foreign != null) {
      throw new Rejected(
          ModelFailures.FOREIGN_LINK,
          "the answer links to "
              + redactor.redact(foreign)
              + ", which is not in cs.llm.allowed-link-hosts "
              + links.hosts());
    }
    return stripped;
  }

  /**
   * True when {@link #check} would reject the text as garbled (a sick model, not an empty or
   * filtered answer).
   */
  public static boolean isGarbled(String text) {
    return text != null && !text.isBlank() && garbledReason(text.strip()) != null;
  }

  /**
   * Why the text looks garbled, or null when it looks like language: no letter at all (in any
   * script, so Chinese passes), or more than 10 % of its characters are U+FFFD (a broken decoding),
   * control characters other than line breaks and tabs, unassigned or private-use code points, or
   * isolated surrogates.
   */
  static String garbledReason(String text) {
    int total = 0;
    int letters = 0;
    int bad = 0;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      total++;
      if (Character.isLetter(cp)) {
        letters++;
      } else if (cp == 0xFFFD
          || isBadControl(cp)
          || Character.getType(cp) == Character.UNASSIGNED
          || Character.getType(cp) == Character.PRIVATE_USE
          || Character.getType(cp) == Character.SURROGATE) {
        bad++;
      }
    }
    if (letters == 0) {
      return "no letters";
    }
    if (bad * 10 > total) {
      return bad + " of " + total + " characters are replacement, control or unassigned characters";
    }
    return null;
  }

  private static boolean isBadControl(int cp) {
    return Character.getType(cp) == Character.CONTROL && cp != '\n' && cp != '\r' && cp != '\t';
  }
}
