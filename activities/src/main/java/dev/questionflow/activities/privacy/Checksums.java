package dev.questionflow.activities.privacy;

import java.time.DateTimeException;
import java.time.LocalDate;

/**
 * The check-digit rules that tell a real card, IBAN or Chinese ID number from a digit run of the
 * same shape. Each is a few lines of arithmetic fixed by its standard, which is why they are
 * written here rather than taken from a validation library (commons-validator would bring BeanUtils
 * and Digester along for three functions).
 */
final class Checksums {

  /** ISO 7064 MOD 11-2 weights of the 17 digits of a Chinese resident ID (GB 11643-1999). */
  private static final int[] CN_ID_WEIGHTS = {7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2};

  /** The check character for each weighted sum mod 11. */
  private static final String CN_ID_CHECK = "10X98765432";

  private Checksums() {}

  /** The Luhn (mod 10) checksum every payment card number satisfies. */
  static boolean luhn(String digits) {
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

  /**
   * Whether the number starts the way a payment card of a major network does (ISO/IEC 7812 issuer
   * ranges): 3 (Amex, JCB, Diners), 4 (Visa), 5 (Mastercard, Maestro), 6 (UnionPay, Discover,
   * Maestro) or Mastercard's 2221-2720. This keeps Luhn-valid order numbers and timestamps that
   * start with a year (20240518...) or with 1, 7, 8, 9 or 0 from being taken for cards.
   */
  static boolean cardIssuer(String digits) {
    char first = digits.charAt(0);
    if (first >= '3' && first <= '6') {
      return true;
    }
    if (first == '2' && digits.length() >= 4) {
      int prefix = Integer.parseInt(digits.substring(0, 4));
      return prefix >= 2221 && prefix <= 2720;
    }
    return false;
  }

  /**
   * ISO 13616 IBAN check: two letters, two check digits, then up to 30 letters or digits; moving
   * the first four characters to the end and reading letters as 10..35 gives a number that is 1 mod
   * 97.
   *
   * @param compact upper case, no spaces
   */
  static boolean iban(String compact) {
    if (compact.length() < 15
        || compact.length() > 34
        || !Character.isUpperCase(compact.charAt(0))
        || !Character.isUpperCase(compact.charAt(1))
        || !Character.isDigit(compact.charAt(2))
        || !Character.isDigit(compact.charAt(3))) {
      return false;
    }
    String rearranged = compact.substring(4) + compact.substring(0, 4);
    int remainder = 0;
    for (int i = 0; i < rearranged.length(); i++) {
      char c = rearranged.charAt(i);
      int value;
      if (c >= '0' && c <= '9') {
        value = c - '0';
      } else if (c >= 'A' && c <= 'Z') {
        value = c - 'A' + 10;
      } else {
        return false;
      }
      remainder = (value > 9 ? remainder * 100 : remainder * 10) + value;
      remainder %= 97;
    }
    return remainder == 1;
  }

  /**
   * A Chinese resident ID: 6-digit region, birth date yyyyMMdd (a real date from 1900 up to {@code
   * today}), 3-digit sequence, then the ISO 7064 MOD 11-2 check character (0-9 or X).
   *
   * @param compact 18 characters, upper case
   */
  static boolean chineseId(String compact, LocalDate today) {
    if (compact.length() != 18) {
      return false;
    }
    int sum = 0;
    for (int i = 0; i < 17; i++) {
      char c = compact.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
      sum += (c - '0') * CN_ID_WEIGHTS[i];
    }
    if (compact.charAt(17) != CN_ID_CHECK.charAt(sum % 11)) {
      return false;
    }
    try {
      LocalDate born =
          LocalDate.of(
              Integer.parseInt(compact.substring(6, 10)),
              Integer.parseInt(compact.substring(10, 12)),
              Integer.parseInt(compact.substring(12, 14)));
      return born.getYear() >= 1900 && !born.isAfter(today);
    } catch (DateTimeException e) {
      return false;
    }
  }
}
