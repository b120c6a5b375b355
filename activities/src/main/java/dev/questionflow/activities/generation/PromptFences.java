package dev.questionflow.activities.generation;

/**
 * The fences around text the model must treat as data: the customer's messages and our FAQ
 * knowledge. The system prompt tells the model that whatever stands between the markers is material
 * to answer about, never an instruction. A customer cannot close the fence early: every angle
 * bracket in fenced text (ASCII, full-width, small and mathematical forms alike) becomes a single
 * guillemet, so no fenced text can contain a marker.
 */
public final class PromptFences {

  public static final String CUSTOMER_OPEN = "<customer_message>";
  public static final String CUSTOMER_CLOSE = "</customer_message>";
  public static final String KNOWLEDGE_OPEN = "<knowledge>";
  public static final String KNOWLEDGE_CLOSE = "</knowledge>";

  private static final String OPENING_BRACKETS = "<＜﹤〈⟨〈";
  private static final String CLOSING_BRACKETS = ">＞﹥〉⟩〉";

  private PromptFences() {}

  /** The customer's text inside the customer fence. */
  public static String customer(String text) {
    return CUSTOMER_OPEN + "\n" + neutralised(text) + "\n" + CUSTOMER_CLOSE;
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
