package dev.questionflow.activities.learning;

import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.faq.FaqEntry;
import dev.questionflow.faq.FaqPack;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Staff turn tickets into knowledge: the ticket's question becomes a new phrasing of an entry, or a
 * new entry answered by the staff reply. Every change is checked before anything is written,
 * appended to the {@link FaqChangeLog} (who, when, which ticket) and applied on this instance at
 * once; the other instances pick it up from the log ({@link LiveFaq}). Admins list and revert.
 *
 * <p>A phrasing is the customer's text: it is redacted ({@link Redactor}: cards, phones, e-mail
 * addresses, IBANs, ID numbers), and identifiers such as order or tracking numbers (a word with
 * {@value #ID_DIGITS} or more digits) are taken out, so the pack learns the question, not one
 * customer's data.
 */
public final class FaqLearning {

  private static final Logger log = LoggerFactory.getLogger(FaqLearning.class);

  /** Longest phrasing or standard question kept. */
  public static final int MAX_TEXT = 1000;

  /** Longest answer of a new entry (the reply's own limit). */
  public static final int MAX_ANSWER = 4000;

  /** A word with at least this many digits is an identifier (order, tracking, account number). */
  static final int ID_DIGITS = 5;

  /** New entry ids look like the packs' ids: {@code card_arrival}, {@code refund_timing}. */
  public static final Pattern ENTRY_ID = Pattern.compile("[a-z0-9][a-z0-9_]{1,63}");

  private static final Pattern IDENTIFIER = Pattern.compile("\\S*(?:\\d\\S*){" + ID_DIGITS + ",}");

  private final LiveFaq live;
  private final Redactor redactor;
  private final Clock clock;
  private final Counter learned;
  private final Counter reverted;

  public FaqLearning(LiveFaq live, Redactor redactor, Clock clock, MeterRegistry meters) {
    this.live = live;
    this.redactor = redactor;
    this.clock = clock;
    MeterRegistry m = meters == null ? new SimpleMeterRegistry() : meters;
    this.learned =
        Counter.builder("cs_faq_changes_total")
            .tag("action", "learned")
            .description("FAQ pack changes made by staff from tickets, and reverted by admins")
            .register(m);
    this.reverted = Counter.builder("cs_faq_changes_total").tag("action", "reverted").register(m);
  }

  /**
   * Adds the phrasing to the entry.
   *
   * @param phrasing the customer's question (or the text staff chose instead)
   * @throws ChangeRejected INVALID: unknown entry, empty or overlong text, already a phrasing
   */
  public FaqChange addPhrasing(String entryId, String phrasing, String ticketId, String agent) {
    FaqPack pack = live.pack();
    FaqEntry entry =
        pack.entry(entryId)
            .orElseThrow(() -> invalid("no entry '" + entryId + "' in pack " + pack.id()));
    String text = phrasingText(phrasing);
    String key = normalised(text);
    if (normalised(entry.question()).equals(key)
        || entry.phrasings().stream().anyMatch(p -> normalised(p).equals(key))) {
      throw invalid("'" + text + "' is already a phrasing of entry '" + entryId + "'");
    }
    boolean learnedEntry = live.basePack().entry(entryId).isEmpty();
    return made(
        live.changes()
            .append(
                FaqChange.phrasing(entryId, text, ticketId, agent, clock.instant()), learnedEntry));
  }

  /**
   * Creates an entry answered by {@code answer}, with the phrasing as its first phrasing.
   *
   * @param question its standard question; null or blank = the phrasing
   * @throws ChangeRejected INVALID: bad or taken id, empty or overlong text; UNSAFE: the answer
   *     fails the answer checks (a link outside the allow-list, garbled text)
   */
  public FaqChange addEntry(
      String entryId,
      String question,
      String answer,
      String phrasing,
      String ticketId,
      String agent) {
    if (entryId == null || !ENTRY_ID.matcher(entryId).matches()) {
      throw invalid(
          "a new entry's id must be 2-64 lower-case letters, digits and '_' (e.g. branch_opening_hours)");
    }
    FaqPack pack = live.pack();
    if (pack.entry(entryId).isPresent()) {
      throw invalid("entry '" + entryId + "' already exists in pack " + pack.id());
    }
    String text = phrasingText(phrasing);
    String standard =
        question == null || question.isBlank() ? text : checked("question", question, MAX_TEXT);
    String reply = checked("answer", answer, MAX_ANSWER);
    String unsafe = live.answerRejection(reply);
    if (unsafe != null) { // it would answer every customer whose question matches it
      throw new ChangeRejected(
          ChangeRejected.Why.UNSAFE, "the reply cannot become an FAQ answer: " + unsafe);
    }
    return made(
        live.changes()
            .append(
                FaqChange.entry(entryId, standard, reply, text, ticketId, agent, clock.instant()),
                false));
  }

  /**
   * Reverts the change on every instance (this one at once).
   *
   * @throws ChangeRejected NOT_FOUND, or CONFLICT when already reverted or still in use
   */
  public FaqChange revert(long version, String admin) {
    FaqChange change = live.changes().revert(version, admin, clock.instant());
    reverted.increment();
    log.info(
        "pack change {} ({} '{}', ticket {}) reverted by {}",
        version,
        change.kind(),
        change.entryId(),
        change.ticketId(),
        admin);
    applyNow();
    return change;
  }

  /** The changes, newest first. */
  public List<FaqChange> changes(int limit) {
    return live.changes().all().stream()
        .sorted(Comparator.comparingLong(FaqChange::version).reversed())
        .limit(limit)
        .toList();
  }

  private FaqChange made(FaqChange change) {
    learned.increment();
    log.info(
        "pack change {}: {} '{}' by {} from ticket {}",
        change.version(),
        change.kind(),
        change.entryId(),
        change.agent(),
        change.ticketId());
    applyNow();
    return change;
  }

  /** The change is in the log: if applying it here fails, the next poll applies it. */
  private void applyNow() {
    try {
      live.refresh();
    } catch (RuntimeException e) {
      log.warn("pack change saved but not applied yet (the next poll does): {}", e.toString());
    }
  }

  /** The phrasing to store: redacted, identifiers taken out, spaces collapsed; checked. */
  String phrasingText(String phrasing) {
    if (phrasing == null) {
      throw invalid("the phrasing is empty");
    }
    String redacted = redactor.redact(phrasing);
    String text = IDENTIFIER.matcher(redacted).replaceAll(" ").replaceAll("\\s+", " ").strip();
    if (text.codePoints().noneMatch(Character::isLetterOrDigit)) {
      throw invalid("the phrasing is empty (after removing personal data and identifiers)");
    }
    if (text.length() > MAX_TEXT) {
      throw invalid("the phrasing is longer than " + MAX_TEXT + " characters");
    }
    return text;
  }

  private static String checked(String what, String text, int max) {
    String t = text == null ? "" : text.strip();
    if (t.codePoints().noneMatch(Character::isLetterOrDigit)) {
      throw invalid("the " + what + " is empty");
    }
    if (t.length() > max) {
      throw invalid("the " + what + " is longer than " + max + " characters");
    }
    return t;
  }

  private static String normalised(String text) {
    return text.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
  }

  private static ChangeRejected invalid(String message) {
    return new ChangeRejected(ChangeRejected.Why.INVALID, message);
  }
}
