package dev.questionflow.activities.learning;

/** A pack change that is refused; nothing was changed. The API answers it with {@link #why}. */
public final class ChangeRejected extends RuntimeException {

  public enum Why {
    /** The request itself is wrong: empty text, unknown entry, an entry id that is taken. */
    INVALID,
    /** No change with that version. */
    NOT_FOUND,
    /** The log's state forbids it: already reverted, or a reverted entry still has phrasings. */
    CONFLICT,
    /** A new entry's answer fails the checks a model's answer passes: customers must not see it. */
    UNSAFE
  }

  private final Why why;

  public ChangeRejected(Why why, String message) {
    super(message);
    this.why = why;
  }

  public Why why() {
    return why;
  }
}
