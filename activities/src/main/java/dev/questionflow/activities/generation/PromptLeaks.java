package dev.questionflow.activities.generation;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds an answer that repeats the system prompt: its {@link PromptCanary}, or a run of its rules
 * ({@link PromptBuilder#rules()}) of at least {@link #MIN_RUN} weight.
 *
 * <p>The rule: both texts are compared after NFKC normalisation, in lower case and with everything
 * but letters and digits removed, so spacing, punctuation, case, full-width forms and letters
 * spelled out one by one ("c n r y - ...") do not hide a leak. A common run weighs 1 per Latin
 * letter or digit and 3 per Han, kana or Hangul character (one of them carries about a word), so
 * the threshold of 40 means about eight English words, or 14 Chinese characters of the rules'
 * Chinese line, in a row. The intro sentence (who the assistant is, answer briefly) is not secret
 * and not compared: an assistant may well introduce itself in the same words. The answer is also
 * read decoded, since an injection asks for the prompt in an encoding: reversed, ROT13, and every
 * base64 or hex run in it decoded.
 *
 * <p>What it cannot see: a paraphrase or translation that drops the canary and shares no long run
 * with the rules. The canary is there for that case, as models carry opaque tokens over unchanged.
 */
final class PromptLeaks {

  static final int MIN_RUN = 40;

  /**
   * The fewest characters a run of {@link #MIN_RUN} weight can have (3 per character at most): an
   * answer shares such a run with the rules only if it shares a substring this long with them.
   */
  static final int MIN_RUN_CHARS = (MIN_RUN + 2) / 3;

  /** A base64 run (standard or URL-safe), also wrapped over several lines as encoders do. */
  private static final Pattern BASE64_RUN =
      Pattern.compile(
          "[A-Za-z0-9+/_-]{16,}={0,2}(?:[ \\t]*\\r?\\n[ \\t]*[A-Za-z0-9+/_-]{4,}={0,2})*");

  private static final Pattern HEX_RUN = Pattern.compile("(?:[0-9a-fA-F]{2}){8,}");

  private final String rules;
  private final String canary;

  /**
   * Every substring of the rules {@link #MIN_RUN_CHARS} long. Checked first, so that the quadratic
   * run search runs only for an answer that shares one of them: it cost a tenth of an instance's
   * CPU per model call under overload (JFR, bin/bench peers), for answers that almost never leak.
   */
  private final java.util.Set<String> ruleWindows = new java.util.HashSet<>();

  PromptLeaks(String rules, PromptCanary canary) {
    this.rules = normalised(rules);
    this.canary = normalised(canary.value());
    for (int i = 0; i + MIN_RUN_CHARS <= this.rules.length(); i++) {
      ruleWindows.add(this.rules.substring(i, i + MIN_RUN_CHARS));
    }
  }

  /** Why the answer leaks the prompt ("canary", "rules"), or null when it does not. */
  String find(String answer) {
    for (String view : views(answer)) {
      String text = normalised(view);
      if (!canary.isEmpty() && text.contains(canary)) {
        return "it contains the system prompt's canary";
      }
      if (!sharesAWindow(text)) {
        continue; // no common run of MIN_RUN_CHARS characters, so none of MIN_RUN weight
      }
      int run = longestCommonRun(text, rules);
      if (run >= MIN_RUN) {
        return "it repeats a run of the system prompt's rules (weight " + run + ")";
      }
    }
    return null;
  }

  private boolean sharesAWindow(String text) {
    for (int i = 0; i + MIN_RUN_CHARS <= text.length(); i++) {
      if (ruleWindows.contains(text.substring(i, i + MIN_RUN_CHARS))) {
        return true;
      }
    }
    return false;
  }

  /** The answer as written, and the decodings an injection may ask the model for. */
  private static List<String> views(String answer) {
    List<String> views = new ArrayList<>();
    views.add(answer);
    views.add(new StringBuilder(answer).reverse().toString());
    views.add(rot13(answer));
    Matcher base64 = BASE64_RUN.matcher(answer);
    while (base64.find()) {
      decodeBase64(base64.group().replaceAll("\\s+", "")).ifPresent(views::add);
    }
    Matcher hex = HEX_RUN.matcher(answer);
    while (hex.find()) {
      views.add(new String(HexFormat.of().parseHex(hex.group()), StandardCharsets.UTF_8));
    }
    return views;
  }

  /** The run decoded as UTF-8 text; padding is optional, as encoders differ. */
  private static Optional<String> decodeBase64(String run) {
    String standard = run.replace('-', '+').replace('_', '/').replace("=", "");
    if (standard.length() % 4 == 1) {
      standard = standard.substring(0, standard.length() - 1); // a stray character: no base64
    }
    try {
      return Optional.of(new String(Base64.getDecoder().decode(standard), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static String rot13(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 'a' && c <= 'z') {
        c = (char) ('a' + (c - 'a' + 13) % 26);
      } else if (c >= 'A' && c <= 'Z') {
        c = (char) ('A' + (c - 'A' + 13) % 26);
      }
      out.append(c);
    }
    return out.toString();
  }

  /** NFKC, lower case, letters and digits only. */
  static String normalised(String s) {
    String folded = Normalizer.normalize(s, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
    StringBuilder out = new StringBuilder(folded.length());
    folded.codePoints().filter(Character::isLetterOrDigit).forEach(out::appendCodePoint);
    return out.toString();
  }

  /**
   * The largest weight of a run common to both texts (dynamic programming over the two, one row at
   * a time: answers are short, bounded by the model's max tokens).
   */
  static int longestCommonRun(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    int best = 0;
    for (int i = 1; i <= a.length(); i++) {
      char c = a.charAt(i - 1);
      int weight = weight(c);
      for (int j = 1; j <= b.length(); j++) {
        current[j] = c == b.charAt(j - 1) ? previous[j - 1] + weight : 0;
        if (current[j] > best) {
          best = current[j];
        }
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return best;
  }

  private static int weight(char c) {
    Character.UnicodeScript script = Character.UnicodeScript.of(c);
    return switch (script) {
      case HAN, HIRAGANA, KATAKANA, HANGUL -> 3;
      default -> 1;
    };
  }
}
