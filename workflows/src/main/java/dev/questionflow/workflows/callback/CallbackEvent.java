package dev.questionflow.workflows.callback;

/**
 * The moments a question's caller is told about: the body's {@code type}, and the suffix of the
 * callback workflow's ID (one callback per question and event).
 */
public enum CallbackEvent {
  /** The first answer (a model's, the FAQ's; a quick one says {@code upgrading: true}). */
  ANSWERED("question.answered", "answered"),
  /** Handed over to a person: the answer is the promise of a reply (level TICKET). */
  TICKETED("question.ticketed", "ticketed"),
  /** A person answered the ticket (level HUMAN). */
  ANSWERED_BY_PERSON("question.answered_by_person", "human"),
  /** The fuller model answer replaced a quick one (revision 2). */
  UPGRADED("question.upgraded", "upgraded"),
  /** The model did not get to an upgrade in time: the quick answer stays, upgrading is false. */
  UPGRADE_GIVEN_UP("question.upgrade_given_up", "upgrade-given-up");

  private final String type;
  private final String suffix;

  CallbackEvent(String type, String suffix) {
    this.type = type;
    this.suffix = suffix;
  }

  /** The body's {@code type}. */
  public String type() {
    return type;
  }

  /** The callback workflow's ID suffix. */
  public String suffix() {
    return suffix;
  }
}
