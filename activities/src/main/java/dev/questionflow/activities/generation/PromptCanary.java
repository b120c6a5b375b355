package dev.questionflow.activities.generation;

import java.security.SecureRandom;

/**
 * A per-deployment random token in the system prompt ({@code cs.llm.prompt-canary}). Nothing
 * legitimate ever writes it, so an answer that contains it, in any spelling, repeats the system
 * prompt. {@link #toString()} hides the value, so it cannot reach a log line by accident.
 */
public final class PromptCanary {

  /** Fewer letters and digits than this are too easy to guess, or to write by chance. */
  static final int MIN_LENGTH = 12;

  private static final String ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String value;
  private final boolean generated;

  private PromptCanary(String value, boolean generated) {
    this.value = value;
    this.generated = generated;
  }

  /**
   * @throws IllegalArgumentException when the value has fewer than {@link #MIN_LENGTH} letters and
   *     digits
   */
  public static PromptCanary of(String value) {
    long lettersAndDigits =
        value == null ? 0 : value.chars().filter(Character::isLetterOrDigit).count();
    if (lettersAndDigits < MIN_LENGTH) {
      throw new IllegalArgumentException(
          "cs.llm.prompt-canary (PROMPT_CANARY) needs at least "
              + MIN_LENGTH
              + " letters and digits, e.g. openssl rand -hex 12; leave it unset for a random one");
    }
    return new PromptCanary(value.strip(), false);
  }

  /** 24 random characters (120 bits), different at every start. */
  public static PromptCanary random() {
    StringBuilder value = new StringBuilder("cnry-");
    for (int i = 0; i < 24; i++) {
      value.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return new PromptCanary(value.toString(), true);
  }

  /** True when no value was configured and this one was made up at start. */
  public boolean generated() {
    return generated;
  }

  String value() {
    return value;
  }

  @Override
  public String toString() {
    return "PromptCanary[hidden]";
  }
}
