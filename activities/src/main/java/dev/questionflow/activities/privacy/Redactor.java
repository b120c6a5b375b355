package dev.questionflow.activities.privacy;

import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces personal data in a text by typed placeholders ({@link PersonalData}): payment cards,
 * phone numbers, e-mail addresses, IBANs and Chinese resident ID numbers. Used on everything that
 * leaves for the model (the question and the history in the prompt), on what is stored for later
 * prompts and for people (session turns, tickets, the helpdesk payload), and on the model's answer.
 * Immutable and thread-safe; built once from {@link RedactionSettings}.
 *
 * <p>Why regular expressions and checksums rather than a library: the shapes are narrow and
 * well-known, the checksums (Luhn, mod-97, MOD 11-2) remove most false positives among long digit
 * runs, and the libraries that do more (libphonenumber, Presidio-style recognisers) need the
 * customer's region to parse national numbers, or a Python/NLP runtime. Boundaries are written with
 * ASCII classes, so a value right next to Chinese text (which has no spaces between words) is found
 * ("卡号4111111111111111谢谢"), while a value glued to Latin letters or digits ("ORD-4111...", a longer
 * digit run) is taken for an identifier and left alone.
 *
 * <p>Every kind is searched in the original text, most specific first (e-mail, IBAN, Chinese ID,
 * card, then the phone shapes), and a span claimed by one kind is not looked at again: the digits
 * of "13812345678@qq.com" stay inside the e-mail, an allowed support number is not half-redacted by
 * a later phone shape. A kind that is switched off still claims its spans, kept as they are, for
 * the same reason.
 */
public final class Redactor {

  /** Every kind, nothing allowed: the default where no settings are given. */
  public static final Redactor ALL_KINDS = new Redactor(RedactionSettings.ALL);

  /** The usual pragmatic address shape (not full RFC 5322, which nobody types in a chat). */
  private static final Pattern EMAIL =
      Pattern.compile(
          "(?<![\\w.+-])[\\w.%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}");

  /**
   * Country code and check digits, then the account as one token or printed in groups of four (the
   * last one shorter): free text ("AB12 departs from gate 5") rarely has that shape, so the mod-97
   * check is asked about few candidates.
   */
  private static final Pattern IBAN =
      Pattern.compile(
          "(?<![A-Za-z0-9])[A-Za-z]{2}\\d{2}"
              + "(?:[A-Za-z0-9]{11,30}|(?: [A-Za-z0-9]{4}){2,7}+(?: [A-Za-z0-9]{1,4})?)(?![A-Za-z0-9])");

  /** 18 characters, optionally spaced as region, birth date, sequence and check character. */
  private static final Pattern CN_ID =
      Pattern.compile("(?<![A-Za-z0-9])\\d{6} ?\\d{8} ?\\d{3}[\\dXx](?![A-Za-z0-9])");

  /**
   * Digits in one run or in groups of three or more (4-4-4-4, Amex's 4-6-5, UnionPay's 4-4-4-4-3)
   * joined by single spaces or dashes, not glued to a longer identifier (a letter, digit or an
   * identifier's "ORD-" / "#" before it).
   */
  private static final Pattern CARD =
      Pattern.compile(
          "(?<![A-Za-z0-9_])(?<![A-Za-z0-9_][-_#/])\\d{3,}+(?:[ -]\\d{3,}+)*+(?![A-Za-z0-9_])");

  /** A phone shape and how many digits a number of that shape has. */
  private record PhoneShape(Pattern pattern, int minDigits, int maxDigits) {
    PhoneShape(String regex, int minDigits, int maxDigits) {
      this(Pattern.compile(regex), minDigits, maxDigits);
    }

    boolean digitsFit(String value) {
      int digits = AllowList.lettersAndDigits(value).length();
      return digits >= minDigits && digits <= maxDigits;
    }
  }

  /**
   * Phone shapes, each narrow enough that dates (2024-05-18, 18.05.2024), amounts (1299.00, 3-5)
   * and order numbers do not fit. Groups are delimited by separators and possessive, so no input
   * makes the matcher backtrack exponentially.
   */
  private static final List<PhoneShape> PHONES =
      List.of(
          // +44 20 7946 0958, +86 138 1234 5678, +1 (555) 123-4567, +8613812345678: E.164 allows
          // at most 15 digits, and a country code with fewer than 7 more is a code, not a number
          new PhoneShape(
              "(?<![\\w+])\\+(?:\\d{7,15}+|\\d{1,3}(?:[ .-]?\\(\\d{1,5}\\))?(?:[ .-]\\d{1,12}+){1,6})(?![\\w])",
              8,
              15),
          // Chinese mobile numbers: 13812345678, 138 1234 5678, 138-1234-5678
          new PhoneShape("(?<![\\w+])1[3-9]\\d(?:[ -]?\\d{4}){2}(?![\\w])", 11, 11),
          // an area code in brackets: (555) 123-4567, (020) 7946 0958
          new PhoneShape("(?<![\\w])\\(\\d{2,5}\\)[ .-]?\\d{3,4}[ .-]?\\d{3,4}(?![\\w])", 8, 13),
          // North American grouping: 555-123-4567, 555.123.4567, 400 820 8820
          new PhoneShape("(?<![\\w.-])\\d{3}([ .-])\\d{3}\\1\\d{4}(?![\\w]|[.-]\\d)", 10, 10),
          // a national number after its trunk 0 (00 is the international prefix): 020 7946 0958,
          // 010-12345678, 0755-8888 8888
          new PhoneShape(
              "(?<![\\w.-])0[1-9]\\d{0,3}[ -]\\d{3,4}(?:[ -]?\\d{3,4})?(?![\\w]|[.-]\\d)", 9, 12));

  private final RedactionSettings settings;
  private final AllowList allow;
  private final Clock clock;

  public Redactor(RedactionSettings settings) {
    this(settings, Clock.systemUTC());
  }

  /**
   * @param clock today's date for the Chinese ID's birth-date check (no one is born in the future)
   */
  Redactor(RedactionSettings settings, Clock clock) {
    this.settings = settings;
    this.allow = new AllowList(settings.allow());
    this.clock = clock;
  }

  public RedactionSettings settings() {
    return settings;
  }

  /** The text with every enabled kind of personal data replaced by its placeholder. */
  public String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    Claims claims = new Claims();
    whole(text, EMAIL, PersonalData.EMAIL, value -> true, claims);
    groups(text, IBAN, PersonalData.IBAN, 15, 34, Checksums::iban, claims);
    LocalDate today = LocalDate.now(clock);
    whole(
        text,
        CN_ID,
        PersonalData.CN_ID,
        value -> Checksums.chineseId(AllowList.lettersAndDigits(value), today),
        claims);
    groups(
        text,
        CARD,
        PersonalData.CARD,
        13,
        19,
        digits -> Checksums.cardIssuer(digits) && Checksums.luhn(digits),
        claims);
    for (PhoneShape phone : PHONES) {
      whole(text, phone.pattern(), PersonalData.PHONE, phone::digitsFit, claims);
    }
    return claims.apply(text);
  }

  /** Claims every match of {@code pattern} that is {@code valid} as a whole. */
  private void whole(
      String text, Pattern pattern, PersonalData kind, Predicate<String> valid, Claims claims) {
    Matcher m = pattern.matcher(text);
    while (m.find()) {
      if (valid.test(m.group())) {
        claim(text, kind, m.start(), m.end(), claims);
      }
    }
  }

  /**
   * Claims, within each match of {@code pattern}, the longest run of whole groups (from the
   * earliest group that starts one) whose letters and digits number {@code min} to {@code max} and
   * are {@code valid}: a match may carry more than the value ("4111 1111 1111 1111 12 25" with the
   * expiry date after the card, "DE89 3704 0044 0532 0130 00 is" with the next word), or less than
   * a card in front of it ("ref 12 4111 1111 1111 1111").
   */
  private void groups(
      String text,
      Pattern pattern,
      PersonalData kind,
      int min,
      int max,
      Predicate<String> valid,
      Claims claims) {
    Matcher m = pattern.matcher(text);
    int from = 0;
    while (from < text.length() && m.find(from)) {
      int[] span = longestValidRun(text, m.start(), m.end(), min, max, valid);
      if (span == null) {
        from = m.end();
        continue;
      }
      claim(text, kind, span[0], span[1], claims);
      from = span[1];
    }
  }

  private static int[] longestValidRun(
      String text, int start, int end, int min, int max, Predicate<String> valid) {
    List<int[]> groups = new ArrayList<>();
    int groupStart = start;
    for (int i = start; i <= end; i++) {
      if (i == end || !Character.isLetterOrDigit(text.charAt(i))) {
        if (i > groupStart) {
          groups.add(new int[] {groupStart, i});
        }
        groupStart = i + 1;
      }
    }
    for (int first = 0; first < groups.size(); first++) {
      int[] best = null;
      StringBuilder compact = new StringBuilder();
      for (int last = first; last < groups.size(); last++) {
        compact.append(
            AllowList.lettersAndDigits(text.substring(groups.get(last)[0], groups.get(last)[1])));
        if (compact.length() > max) {
          break;
        }
        if (compact.length() >= min && valid.test(compact.toString())) {
          best = new int[] {groups.get(first)[0], groups.get(last)[1]};
        }
      }
      if (best != null) {
        return best;
      }
    }
    return null;
  }

  private void claim(String text, PersonalData kind, int start, int end, Claims claims) {
    boolean keep =
        !settings.redacts(kind) || allow.allows(kind, text.substring(start, end).strip());
    claims.add(start, end, keep ? null : kind.placeholder());
  }

  /** Non-overlapping spans of the text, first claim wins; a null replacement keeps the span. */
  private static final class Claims {
    private final TreeMap<Integer, int[]> spans = new TreeMap<>();
    private final Map<Integer, String> replacements = new TreeMap<>();

    void add(int start, int end, String replacement) {
      Map.Entry<Integer, int[]> before = spans.floorEntry(start);
      if (before != null && before.getValue()[1] > start) {
        return;
      }
      Map.Entry<Integer, int[]> after = spans.ceilingEntry(start);
      if (after != null && after.getKey() < end) {
        return;
      }
      spans.put(start, new int[] {start, end});
      if (replacement != null) {
        replacements.put(start, replacement);
      }
    }

    String apply(String text) {
      if (replacements.isEmpty()) {
        return text;
      }
      StringBuilder out = new StringBuilder(text.length());
      int last = 0;
      for (Map.Entry<Integer, String> r : replacements.entrySet()) {
        out.append(text, last, r.getKey()).append(r.getValue());
        last = spans.get(r.getKey())[1];
      }
      return out.append(text, last, text.length()).toString();
    }
  }
}
