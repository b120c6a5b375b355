package dev.questionflow.activities.privacy;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Values the {@link Redactor} leaves in place ({@code cs.privacy.redaction.allow}): our own support
 * line, the bank's public IBAN for transfers, the support address. E-mail addresses compare
 * ignoring case; everything else compares on its letters and digits only, so "400-820-8820" in the
 * list also keeps "400 820 8820". A phone number also matches when one side has a country code (1-3
 * leading digits) the other lacks: "+86 400 820 8820" in the list keeps "400-820-8820".
 */
final class AllowList {

  private final Set<String> emails = new HashSet<>();
  private final Set<String> codes = new HashSet<>();

  AllowList(List<String> values) {
    for (String value : values) {
      if (value.contains("@")) {
        emails.add(value.strip().toLowerCase(Locale.ROOT));
      } else {
        String code = lettersAndDigits(value);
        if (!code.isEmpty()) {
          codes.add(code);
        }
      }
    }
  }

  boolean allows(PersonalData kind, String value) {
    if (kind == PersonalData.EMAIL) {
      return emails.contains(value.toLowerCase(Locale.ROOT));
    }
    String code = lettersAndDigits(value);
    if (codes.contains(code)) {
      return true;
    }
    if (kind == PersonalData.PHONE) {
      for (String allowed : codes) {
        if (sameBesidesCountryCode(code, allowed)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean sameBesidesCountryCode(String a, String b) {
    String longer = a.length() >= b.length() ? a : b;
    String shorter = longer == a ? b : a;
    int extra = longer.length() - shorter.length();
    return shorter.length() >= 7 && extra >= 1 && extra <= 3 && longer.endsWith(shorter);
  }

  static String lettersAndDigits(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')) {
        b.append(c);
      } else if (c >= 'a' && c <= 'z') {
        b.append((char) (c - 'a' + 'A'));
      }
    }
    return b.toString();
  }
}
