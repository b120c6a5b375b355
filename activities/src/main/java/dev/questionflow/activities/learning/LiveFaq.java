package dev.questionflow.activities.learning;

import dev.questionflow.faq.FaqEntry;
import dev.questionflow.faq.FaqOverlay;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.KeywordFaqIndex;
import dev.questionflow.faq.SemanticFaqIndex;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pack as it is now on this instance: the loaded pack plus the live changes of the {@link
 * FaqChangeLog}, laid over the matchers as a {@link FaqOverlay} (kept in memory, never written to
 * the stored indexes). At start it applies the whole log; then it polls the log's revision every
 * {@code pollInterval} and, when it moved (a change or a revert on any instance), reads the log and
 * applies it again, so a change is live everywhere within about one interval. The instance that
 * made a change applies it at once ({@link #refresh}).
 *
 * <p>While the log cannot be read (Redis down), the last applied state stays and the poll keeps
 * trying.
 */
public final class LiveFaq implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LiveFaq.class);

  private final FaqPack base;
  private final KeywordFaqIndex keyword;
  private final SemanticFaqIndex semantic;
  private final FaqChangeLog changes;
  private final Runnable onChange;
  private final AnswerCheck answers;
  private volatile FaqPack pack;
  private volatile FaqOverlay overlay = FaqOverlay.EMPTY;
  private long appliedRevision = -1;
  private volatile boolean failing;
  private ScheduledExecutorService poller;

  /**
   * @param semantic null when the semantic level is off
   * @param onChange run after a new state was applied (clears caches of earlier matches)
   * @param answers a learned entry whose answer fails it is left out (taught before the check, or
   *     before the allow-list changed)
   */
  public LiveFaq(
      FaqPack base,
      KeywordFaqIndex keyword,
      SemanticFaqIndex semantic,
      FaqChangeLog changes,
      Runnable onChange,
      AnswerCheck answers) {
    this.base = base;
    this.answers = answers;
    this.keyword = keyword;
    this.semantic = semantic;
    this.changes = changes;
    this.onChange = onChange == null ? () -> {} : onChange;
    this.pack = base;
  }

  /** The pack with the live learned changes (what templates and the staff console read). */
  public FaqPack pack() {
    return pack;
  }

  /** The pack as loaded, without learned changes. */
  public FaqPack basePack() {
    return base;
  }

  public FaqChangeLog changes() {
    return changes;
  }

  /** Why {@code answer} may not be a learned entry's answer, or null when it may. */
  public String answerRejection(String answer) {
    return answers.rejection(answer);
  }

  /**
   * The entry, learned ones included. On a miss the log is read once more first: another instance
   * may have matched a question to an entry learned a moment ago, before this one's next poll.
   */
  public Optional<FaqEntry> entry(String id) {
    Optional<FaqEntry> entry = pack.entry(id);
    if (entry.isPresent() || id == null) {
      return entry;
    }
    try {
      refresh();
    } catch (RuntimeException e) {
      log.debug("FAQ change log not readable for entry {}: {}", id, e.toString());
    }
    return pack.entry(id);
  }

  /**
   * Applies the log when its revision moved since the last time; true when something was applied.
   *
   * @throws RuntimeException when the log cannot be read (the applied state stays)
   */
  public synchronized boolean refresh() {
    long revision = changes.revision();
    if (revision == appliedRevision) {
      return false;
    }
    // read after the revision: a change landing in between is applied now and again at the next
    // poll (applying the same overlay again does nothing)
    List<FaqChange> all = changes.all();
    FaqOverlay next = overlayOf(base, all, answers);
    keyword.apply(next);
    if (semantic != null) {
      semantic.apply(next);
    }
    pack = next.applyTo(base);
    boolean changed = !next.equals(overlay);
    overlay = next;
    appliedRevision = revision;
    if (changed) {
      onChange.run();
      log.info(
          "FAQ pack {}: {} learned entries and {} learned phrasings live (change log revision {})",
          base.id(),
          next.entries().size(),
          next.phrasings().size(),
          revision);
    }
    return changed;
  }

  /**
   * The live changes as an overlay, oldest first. A change that no longer fits the pack (a new pack
   * release brought an entry with a learned entry's id, or dropped an entry a phrasing belongs to)
   * is left out with a WARN instead of stopping every other change; so is a learned entry whose
   * answer fails the answer checks (an ERROR: customers would have seen it).
   */
  static FaqOverlay overlayOf(FaqPack base, List<FaqChange> changeLog, AnswerCheck answers) {
    Set<String> ids = new HashSet<>();
    base.entries().forEach(e -> ids.add(e.id()));
    List<FaqEntry> entries = new ArrayList<>();
    List<FaqOverlay.Phrasing> phrasings = new ArrayList<>();
    for (FaqChange c : changeLog) {
      if (c.reverted()) {
        continue;
      }
      if (c.kind() == FaqChange.Kind.ADD_ENTRY) {
        String rejected = answers.rejection(c.answer());
        if (rejected != null) {
          log.error(
              "pack change {} left out: the answer of learned entry '{}' fails the answer checks"
                  + " ({}); revert it and teach it again",
              c.version(),
              c.entryId(),
              rejected);
          continue;
        }
        if (!ids.add(c.entryId())) {
          log.warn(
              "pack change {} left out: pack {} already has an entry '{}'",
              c.version(),
              base.id(),
              c.entryId());
          continue;
        }
        List<String> first =
            c.text().strip().equals(c.question().strip()) ? List.of() : List.of(c.text());
        entries.add(new FaqEntry(c.entryId(), c.question(), c.answer(), first, List.of(), null));
      } else if (ids.contains(c.entryId())) {
        phrasings.add(new FaqOverlay.Phrasing(c.entryId(), c.text()));
      } else {
        log.warn(
            "pack change {} left out: pack {} has no entry '{}'",
            c.version(),
            base.id(),
            c.entryId());
      }
    }
    return new FaqOverlay(entries, phrasings);
  }

  /** Applies the whole log now (a failure is logged: the poll applies it later), then polls. */
  public synchronized LiveFaq start(Duration pollInterval, MeterRegistry meters) {
    poll();
    if (meters != null) {
      Gauge.builder("cs_faq_learned", this, f -> f.overlay.entries().size())
          .tag("kind", "entry")
          .description("Learned FAQ entries live on this instance")
          .register(meters);
      Gauge.builder("cs_faq_learned", this, f -> f.overlay.phrasings().size())
          .tag("kind", "phrasing")
          .description("Learned FAQ phrasings live on this instance")
          .register(meters);
    }
    poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "faq-change-poll");
              t.setDaemon(true);
              return t;
            });
    long millis = Math.max(50, pollInterval.toMillis());
    poller.scheduleWithFixedDelay(this::poll, millis, millis, TimeUnit.MILLISECONDS);
    log.info(
        "FAQ change log: {}, polled every {} ms for changes made on other instances",
        changes.kind(),
        millis);
    return this;
  }

  /** One poll: one WARN when the log becomes unreadable, one INFO when it is back. */
  private void poll() {
    try {
      refresh();
      if (failing) {
        failing = false;
        log.info("FAQ change log readable again");
      }
    } catch (RuntimeException e) {
      if (!failing) {
        failing = true;
        log.warn(
            "FAQ change log not readable ({}): the learned changes applied so far stay; retrying",
            e.toString());
      }
    }
  }

  @Override
  public synchronized void close() {
    if (poller != null) {
      poller.shutdownNow();
    }
  }
}
