package dev.questionflow.faq;

import java.util.Locale;

/**
 * The form the semantic level matches a question in, which is also the key its cached match is kept
 * under ({@link MatchCache}): matching the key itself keeps the cache exact, so a repeat gets what
 * an uncached match of it would give.
 *
 * <ul>
 *   <li>spaces (any Unicode space, tabs, line breaks) trimmed and collapsed to one: the tokenizers
 *       and analyzers split on them, so this changes nothing but the key;
 *   <li>full-width ASCII letters and digits ({@code ｉＰｈｏｎｅ １２}, typed with a Chinese input method)
 *       to their ASCII forms, which is how the packs write them; full-width punctuation stays, as
 *       Chinese text is written with it;
 *   <li>lower case, only for a model whose tokenizer lower-cases anyway (the English ones; the
 *       Chinese bge keeps case), so it too changes nothing but the key.
 * </ul>
 */
final class QuestionText {

  private static final int FULL_WIDTH_OFFSET = 0xFEE0; // 'Ａ' (U+FF21) - 'A'

  private QuestionText() {}

  static String canonical(String text, boolean lowerCase) {
    StringBuilder out = new StringBuilder(text.length());
    boolean pendingSpace = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c) || Character.getType(c) == Character.SPACE_SEPARATOR) {
        pendingSpace = out.length() > 0;
        continue;
      }
      if (pendingSpace) {
        out.append(' ');
        pendingSpace = false;
      }
      out.append(isFullWidthLetterOrDigit(c) ? (char) (c - FULL_WIDTH_OFFSET) : c);
    }
    String canonical = out.toString();
    return lowerCase ? canonical.toLowerCase(Locale.ROOT) : canonical;
  }

  private static boolean isFullWidthLetterOrDigit(char c) {
    return (c >= '０' && c <= '９') || (c >= 'Ａ' && c <= 'Ｚ') || (c >= 'ａ' && c <= 'ｚ');
  }
}
