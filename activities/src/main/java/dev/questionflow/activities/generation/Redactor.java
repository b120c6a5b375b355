package dev.questionflow.activities.generation;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes personal data a model may echo or invent in an answer: payment card numbers, e-mail
 * addresses and phone numbers, each replaced by a visible placeholder.
 *
 * <p>Why regular expressions and no library: the candidates are narrow, well-known shapes, and
 * over-matching is acceptable (a redacted digit string costs little, a leaked card number costs a
 * lot). Card numbers are confirmed with the Luhn checksum, which removes most false positives among
 * long digit runs. The libraries that do more (libphonenumber, Presidio-style recognisers) need the
 * customer's region to parse national numbers, or a Python/NLP runtime, and their extra precision
 * is exactly what we do not want here (we redact anything phone-shaped, in any region). The order
 * matters: cards first (a 16-digit card is also phone-shaped), then e-mails (a phone pattern must
 * not eat the digits of an address), then phones.
 */
public final class Redactor {

  public static final String CARD = "[card number removed]";
  public static final String EMAIL = "[e-mail removed]";
  public static final String PHONE = "[phone number removed]";

  /**
   * 13-19 digits, optionally grouped by single spaces or dashes, not part of a longer digit run.
   */
  private static final Pattern CARD_CANDIDATE =
      Pattern.compile("(?<![\\d-])\\d(?:[ -]?\\d){12,18}(?![\\d])");

  /** The usual pragmatic address shape (not full RFC 5322, which nobody types in a chat). */
  private static final Pattern EMAIL_ADDRESS =
      Pattern.compile(
          "(?<![\\w.+-])[\\w.%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}");

  /**
   * A phone-shaped run: optional +country code, digits in groups separated by spaces, dots, dashes
   * or a parenthesised area code, 7 to 15 digits in all (ITU E.164 allows at most 15). Dates
   * (2024-05-01, 8 digits with two dashes in 4-2-2 shape) and plain amounts are excluded
   * separately, see {@link #looksLikePhone}.
   */
  private static final Pattern PHONE_CANDIDATE =
      Pattern.compile(
          "(?<![\\w+])(?:\\+\\d{1,3}[ .-]?)?(?:\\(\\d{1,5}\\)[ .-]?)?\\d(?:[ .-]?\\d){5,14}(?![\\w])");

  private static final Pattern ISO_DATE = Pattern.compile("\\d{4}[-./]\\d{1,2}[-./]\\d{1,2}");

  private Redactor() {}

  public static String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = redactCards(text);
    out = EMAIL_ADDRESS.matcher(out).replaceAll(Matcher.quoteReplacement(EMAIL));
    out = replace(out, PHONE_CANDIDATE, m -> looksLikePhone(m) ? PHONE : null);
    return out;
  }

  /**
   * Cards: a candidate run may be longer than the card (e.g. "4111 1111 1111 1111 12 25" with the
   * expiry after it), so the longest Luhn-valid prefix of 13-19 digits that ends at a group
   * boundary is redacted, and the rest is scanned again.
   */
  private static String redactCards(String text) {
    Matcher m = CARD_CANDIDATE.matcher(text);
    StringBuilder out = new StringBuilder(text.length());
    int last = 0;
    int from = 0;
    while (from < text.length() && m.find(from)) {
      int cardEnd = longestLuhnPrefix(text, m.start(), m.end());
      if (cardEnd < 0) {
        from = m.end();
        continue;
      }
      out.append(text, last, m.start()).append(CARD);
      last = cardEnd;
      from = cardEnd;
    }
    return last == 0 ? text : out.append(text, last, text.length()).toString();
  }

  /**
   * End index of the longest card-like prefix of text[start, end) ending at a group boundary, or
   * -1.
   */
  private static int longestLuhnPrefix(String text, int start, int end) {
    for (int e = end; e > start; e--) {
      boolean boundary = e == end || !Character.isDigit(text.charAt(e));
      if (boundary && Character.isDigit(text.charAt(e - 1))) {
        String digits = digits(text.substring(start, e));
        if (digits.length() < 13) {
          return -1;
        }
        if (luhnValid(digits)) {
          return e;
        }
      }
    }
    return -1;
  }

  static boolean looksLikePhone(String candidate) {
    int digits = digits(candidate).length();
    if (digits < 7 || digits > 15) {
      return false;
    }
    if (ISO_DATE.matcher(candidate).matches()) {
      return false;
    }
    // a bare run without separators or '+' of fewer than 9 digits is more likely a reference/amount
    // than a phone
    boolean formatted =
        candidate.startsWith("+")
            || candidate.contains("(")
            || candidate.matches(".*\\d[ .-]\\d.*");
    return formatted || digits >= 9;
  }

  /** The Luhn (mod 10) checksum every payment card number satisfies. */
  static boolean luhnValid(String digits) {
    if (digits.length() < 13 || digits.length() > 19) {
      return false;
    }
    int sum = 0;
    boolean doubleIt = false;
    for (int i = digits.length() - 1; i >= 0; i--) {
      int d = digits.charAt(i) - '0';
      if (doubleIt) {
        d *= 2;
        if (d > 9) {
          d -= 9;
        }
      }
      sum += d;
      doubleIt = !doubleIt;
    }
    return sum % 10 == 0;
  }

  private static String digits(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= '0' && c <= '9') {
        b.append(c);
      }
    }
    return b.toString();
  }

  private interface Replacement {
    /** The replacement, or null to keep the match. */
    String apply(String match);
  }

  private static String replace(String text, Pattern pattern, Replacement replacement) {
    Matcher m = pattern.matcher(text);
    StringBuilder out = new StringBuilder(text.length());
    int last = 0;
    while (m.find()) {
      String r = replacement.apply(m.group());
      if (r != null) {
        out.append(text, last, m.start()).append(r);
        last = m.end();
      }
    }
    return last == 0 ? text : out.append(text, last, text.length()).toString();
  }
}
