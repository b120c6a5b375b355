package dev.questionflow.activities.learning;

import java.time.Instant;
import java.util.Objects;

/**
 * One audited change to the FAQ pack, made by staff from a ticket: a new phrasing of an entry, or a
 * new entry whose answer is the staff reply. Changes are never edited or deleted: a revert marks
 * the change reverted (by whom, when) and the matchers drop it.
 *
 * @param version the change's number in its pack's log (1, 2, ...; 0 before it is appended)
 * @param entryId the entry the phrasing belongs to, or the new entry's id
 * @param text the phrasing (the customer's question, redacted, or the text staff chose); for a new
 *     entry its first phrasing
 * @param question the new entry's standard question (null for a phrasing)
 * @param answer the new entry's answer: the staff reply (null for a phrasing)
 * @param ticketId the ticket it was learned from
 * @param agent the staff member who made it
 * @param revertedBy the admin who reverted it (null while it is live)
 */
public record FaqChange(
    long version,
    Kind kind,
    String entryId,
    String text,
    String question,
    String answer,
    String ticketId,
    String agent,
    Instant at,
    String revertedBy,
    Instant revertedAt) {

  public enum Kind {
    ADD_PHRASING,
    ADD_ENTRY
  }

  public FaqChange {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(entryId, "entryId");
    Objects.requireNonNull(text, "text");
  }

  /** A phrasing of an existing entry, not yet appended. */
  public static FaqChange phrasing(
      String entryId, String text, String ticketId, String agent, Instant at) {
    return new FaqChange(
        0, Kind.ADD_PHRASING, entryId, text, null, null, ticketId, agent, at, null, null);
  }

  /** A new entry, not yet appended. */
  public static FaqChange entry(
      String entryId,
      String question,
      String answer,
      String text,
      String ticketId,
      String agent,
      Instant at) {
    Objects.requireNonNull(question, "question");
    Objects.requireNonNull(answer, "answer");
    return new FaqChange(
        0, Kind.ADD_ENTRY, entryId, text, question, answer, ticketId, agent, at, null, null);
  }

  public boolean reverted() {
    return revertedAt != null;
  }

  FaqChange withVersion(long newVersion) {
    return new FaqChange(
        newVersion,
        kind,
        entryId,
        text,
        question,
        answer,
        ticketId,
        agent,
        at,
        revertedBy,
        revertedAt);
  }

  FaqChange revertedBy(String by, Instant when) {
    return new FaqChange(
        version, kind, entryId, text, question, answer, ticketId, agent, at, by, when);
  }

  /** The same change with its text fields replaced (sealed or opened). */
  FaqChange withTexts(String newText, String newQuestion, String newAnswer) {
    return new FaqChange(
        version,
        kind,
        entryId,
        newText,
        newQuestion,
        newAnswer,
        ticketId,
        agent,
        at,
        revertedBy,
        revertedAt);
  }
}
