package dev.questionflow.activities.generation;

import java.util.regex.Pattern;

/**
 * The fences around text the model must treat as data: the customer's messages and our FAQ
 * knowledge. The system prompt tells the model that whatever stands between the markers is material
 * to answer about, never an instruction. A customer cannot close the fence early: every angle
 * bracket in the customer's text (ASCII, full-width, small and mathematical forms alike) becomes a
 * single guillemet, so it cannot contain a marker. Our own FAQ text keeps its brackets ("Cards >
 * Link a card"); only a fence marker in it is neutralised.
 */
public final class PromptFences {

  public static final String CUSTOMER_OPEN = "<customer_message>";
  public static final String CUSTOMER_CLOSE = "</customer_message>";
  public static final String KNOWLEDGE_OPEN = "<knowledge>";
  public static final String KNOWLEDGE_CLOSE = "</knowledge>";

  private static final String OPENING_BRACKETS = "<＜﹤〈⟨〈";
  private static final String CLOSING_BRACKETS = ">＞﹥〉⟩〉";

  /** A fence marker written with any of those brackets, spacing or case. */
  private static final Pattern FENCE_MARKER =
      Pattern.compile(
          "(?i)["
              + OPENING_BRACKETS
              + "]\\s*/?\\s*(?:customer_message|knowledge)\\s*["
              + CLOSING_BRACKETS
              + "]");

  private PromptFences() {}

  /** The customer's text inside the customer fence. */
  public static String customer(String text) {
    return CUSTOMER_OPEN + "\n" + neutralised(text) + "\n" + CUSTOMER_CLOSE;
  }

  /** FAQ text with any fence marker in it neutralised; other angle brackets stay. */
  static String knowledge(String text) {
    return text == null ? "" : FENCE_MARKER.matcher(text).replaceAll(m -> neutralised(m.group()));
  }

  /** The text with every angle bracket replaced, so that it cannot open or close a fence. */
  static String neutralised(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (OPENING_BRACKETS.indexOf(c) >= 0) {
        out.append('‹');
      } else if (CLOSING_BRACKETS.indexOf(c) >= 0) {
        out.append('›');
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
