package dev.questionflow.activities.learning;

import java.time.Instant;
import java.util.List;

/**
 * The versioned, audited log of a pack's learned changes ({@link FaqChange}), shared by every
 * instance: the matchers of each instance apply what it holds ({@link LiveFaq}). Appends and
 * reverts are atomic, so two instances cannot both create an entry with the same id, and an entry
 * cannot be reverted while a phrasing added to it is live.
 */
public interface FaqChangeLog {

  /**
   * Appends the change and returns it with its version.
   *
   * @param learnedEntry true when the change is a phrasing of an entry that was itself learned (it
   *     must still be live)
   * @throws ChangeRejected (INVALID) when a new entry's id is taken by a live learned entry, or a
   *     learned entry the phrasing belongs to was reverted
   */
  FaqChange append(FaqChange change, boolean learnedEntry);

  /**
   * Marks the change reverted and returns it so.
   *
   * @throws ChangeRejected NOT_FOUND for an unknown version, CONFLICT when it is already reverted
   *     or it created an entry that still has live phrasings
   */
  FaqChange revert(long version, String by, Instant at);

  /** Every change, reverted ones included, oldest first. */
  List<FaqChange> all();

  /** A number that changes whenever a change is appended or reverted (cheap to poll). */
  long revision();

  /** "redis" or "in-memory", for logs. */
  String kind();
}
