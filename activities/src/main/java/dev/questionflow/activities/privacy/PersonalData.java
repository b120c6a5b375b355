package dev.questionflow.activities.privacy;

import java.util.Locale;

/**
 * The kinds of personal data the {@link Redactor} removes, each with the placeholder that takes its
 * place. The placeholders are short, upper-case and bracketed so that a model reads them as "a
 * value was here" (and can still say "your card [CARD]"), and staff reading a transcript see at
 * once what kind of value the customer gave.
 */
public enum PersonalData {
  /** Payment card numbers: 13-19 digits, Luhn checksum, a card network's leading digits. */
  CARD("[CARD]"),
  /** International (+country code), Chinese mobile, and grouped national phone numbers. */
  PHONE("[PHONE]"),
  EMAIL("[EMAIL]"),
  /** International bank account numbers (ISO 13616, mod-97 check digits). */
  IBAN("[IBAN]"),
  /** Chinese resident identity card numbers (GB 11643: birth date, ISO 7064 MOD 11-2). */
  CN_ID("[CN_ID]");

  private final String placeholder;

  PersonalData(String placeholder) {
    this.placeholder = placeholder;
  }

  public String placeholder() {
    return placeholder;
  }

  /** The kind's name in configuration: {@code card}, {@code phone}, ..., {@code cn-id}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
