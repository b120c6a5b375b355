package dev.questionflow.activities.learning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.generation.LinkAllowList;
import dev.questionflow.activities.generation.OutputChecks;
import dev.questionflow.activities.generation.PromptCanary;
import dev.questionflow.activities.generation.Safeguards;
import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.faq.FaqMatch;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.FaqPacks;
import dev.questionflow.faq.KeywordFaqIndex;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two instances (each its own keyword index and {@link LiveFaq}) sharing one change log: a phrasing
 * learned on one changes the next match on the other once it refreshes, and a revert undoes it on
 * both; bad changes are refused and change nothing.
 */
class LiveFaqTest {

  static final String SWALLOW = "what is the airspeed velocity of an unladen swallow";

  private static FaqPack pack;
  private static KeywordFaqIndex indexA;
  private static KeywordFaqIndex indexB;

  @BeforeAll
  static void build() {
    pack = FaqPacks.loadFromClasspath("banking77");
    indexA = KeywordFaqIndex.build(pack);
    indexB = KeywordFaqIndex.build(pack);
  }

  @AfterAll
  static void close() {
    indexA.close();
    indexB.close();
  }

  @Test
  void aPhrasingLearnedOnOneInstanceChangesTheNextMatchOnTheOtherUntilItIsReverted() {
    InMemoryFaqChangeLog log = new InMemoryFaqChangeLog();
    AtomicInteger cleared = new AtomicInteger();
    LiveFaq a = new LiveFaq(pack, indexA, null, log, cleared::incrementAndGet, AnswerCheck.NONE);
    LiveFaq b = new LiveFaq(pack, indexB, null, log, null, AnswerCheck.NONE);
    a.refresh();
    b.refresh();
    FaqLearning learning = learning(a);
    assertThat(indexB.best(SWALLOW)).isEmpty();

    FaqChange change = learning.addPhrasing("card_arrival", SWALLOW, "T-1", "alice");
    assertThat(indexA.best(SWALLOW)).get().extracting(FaqMatch::faqId).isEqualTo("card_arrival");
    assertThat(cleared).hasValue(1);
    assertThat(indexB.best(SWALLOW)).as("not polled yet").isEmpty();
    assertThat(b.refresh()).isTrue();
    assertThat(indexB.best(SWALLOW)).get().extracting(FaqMatch::faqId).isEqualTo("card_arrival");
    assertThat(b.pack().entry("card_arrival").orElseThrow().phrasings()).contains(SWALLOW);
    assertThat(b.refresh()).as("nothing new").isFalse();

    learning.revert(change.version(), "root");
    assertThat(indexA.best(SWALLOW)).isEmpty();
    assertThat(b.refresh()).isTrue();
    assertThat(indexB.best(SWALLOW)).isEmpty();
    assertThat(b.pack().entry("card_arrival").orElseThrow().phrasings()).doesNotContain(SWALLOW);
    a.close();
    b.close();
  }

  @Test
  void aNewEntryIsInTheLivePackAnsweredByTheReplyAndFoundByTheOtherInstanceOnAMiss() {
    InMemoryFaqChangeLog log = new InMemoryFaqChangeLog();
    LiveFaq a = new LiveFaq(pack, indexA, null, log, null, AnswerCheck.NONE);
    LiveFaq b = new LiveFaq(pack, indexB, null, log, null, AnswerCheck.NONE);
    FaqChange entry =
        learning(a)
            .addEntry(
                "branch_opening_hours",
                "When are your branches open?",
                "Monday to Friday, 9:00 to 17:00.",
                "what time does the branch open on saturday",
                "T-2",
                "bob");
    assertThat(entry.kind()).isEqualTo(FaqChange.Kind.ADD_ENTRY);
    assertThat(indexA.best("are your branches open saturdays"))
        .get()
        .extracting(FaqMatch::faqId)
        .isEqualTo("branch_opening_hours");
    // b has not polled: asked for the entry by id (a template), it reads the log first
    assertThat(b.entry("branch_opening_hours").orElseThrow().answer())
        .isEqualTo("Monday to Friday, 9:00 to 17:00.");
    assertThat(indexB.best("are your branches open saturdays")).isPresent();
    learning(a).revert(entry.version(), "root");
    b.refresh();
    assertThat(b.entry("branch_opening_hours")).isEmpty();
    assertThat(indexB.best("are your branches open saturdays")).isEmpty();
  }

  @Test
  void badChangesAreRefusedBeforeAnythingIsWritten() {
    InMemoryFaqChangeLog log = new InMemoryFaqChangeLog();
    LiveFaq a = new LiveFaq(pack, indexA, null, log, null, AnswerCheck.NONE);
    FaqLearning learning = learning(a);
    assertRejected(() -> learning.addPhrasing("no_such_entry", SWALLOW, "T", "x"), "no entry");
    assertRejected(() -> learning.addPhrasing("card_arrival", "  ", "T", "x"), "empty");
    assertRejected(() -> learning.addPhrasing("card_arrival", "?!", "T", "x"), "empty");
    assertRejected(
        () -> learning.addPhrasing("card_arrival", "a".repeat(1001), "T", "x"), "longer than");
    String existing = pack.entry("card_arrival").orElseThrow().phrasings().get(0);
    assertRejected(
        () -> learning.addPhrasing("card_arrival", " " + existing.toUpperCase() + " ", "T", "x"),
        "already a phrasing");
    assertRejected(
        () -> learning.addEntry("card_arrival", "q", "a", SWALLOW, "T", "x"), "already exists");
    assertRejected(() -> learning.addEntry("Bad Id!", "q", "a", SWALLOW, "T", "x"), "id must be");
    assertRejected(() -> learning.addEntry("fine_id", "q", " ", SWALLOW, "T", "x"), "answer");
    assertThat(log.all()).isEmpty();
    assertThat(log.revision()).isZero();
    assertThat(indexA.overlay().isEmpty()).isTrue();
  }

  @Test
  void aPhrasingCarriesNoPersonalDataOrIdentifiersIntoThePack() {
    InMemoryFaqChangeLog log = new InMemoryFaqChangeLog();
    LiveFaq a = new LiveFaq(pack, indexA, null, log, null, AnswerCheck.NONE);
    try {
      FaqChange c =
          learning(a)
              .addPhrasing(
                  "card_arrival",
                  "order ORD-20931187 card not here, mail me at jo.doe@example.com or call +44 20 7946 0958",
                  "T-3",
                  "alice");
      assertThat(c.text())
          .isEqualTo("order card not here, mail me at [EMAIL] or call [PHONE]")
          .doesNotContain("20931187", "jo.doe", "7946");
      assertThat(log.all().get(0).text()).isEqualTo(c.text());
    } finally {
      log.all().forEach(ch -> log.revert(ch.version(), "cleanup", ch.at()));
      a.refresh();
    }
  }

  /**
   * The model's answer checks guard learned answers: refused when taught, and left out when a
   * change in the log fails them (taught before the check, or before the allow-list changed).
   */
  @Test
  void aLearnedAnswerThatLinksOutsideTheAllowListNeverReachesCustomers() {
    InMemoryFaqChangeLog log = new InMemoryFaqChangeLog();
    AnswerCheck answers =
        new OutputChecks(
                new Safeguards(
                    Redactor.ALL_KINDS,
                    PromptCanary.random(),
                    new LinkAllowList(List.of("northwind.example"))))
            ::rejection;
    LiveFaq a = new LiveFaq(pack, indexA, null, log, null, answers);
    FaqLearning learning = learning(a);
    assertThatThrownBy(
            () ->
                learning.addEntry(
                    "branch_hours", "q", "Log in at evil.com to see them.", SWALLOW, "T", "x"))
        .isInstanceOfSatisfying(
            ChangeRejected.class, e -> assertThat(e.why()).isEqualTo(ChangeRejected.Why.UNSAFE))
        .hasMessageContaining("evil.com");
    assertThat(log.all()).isEmpty();
    FaqChange allowed =
        learning.addEntry(
            "branch_hours", "q", "See https://northwind.example/hours.", SWALLOW, "T", "x");
    assertThat(a.entry("branch_hours")).isPresent();

    // a change already in the log (written by an older version) that fails the checks
    log.append(
        FaqChange.entry(
            "branch_parking",
            "Where do I park?",
            "Park at https://evil.example/parking.",
            "where can i park my car at the branch",
            "T-9",
            "old",
            java.time.Instant.now()),
        false);
    a.refresh();
    assertThat(a.entry("branch_parking")).isEmpty();
    assertThat(indexA.best("where can i park my car at the branch"))
        .map(FaqMatch::faqId)
        .isNotEqualTo(Optional.of("branch_parking"));
    learning.revert(allowed.version(), "root");
    log.all().stream()
        .filter(c -> !c.reverted())
        .forEach(c -> log.revert(c.version(), "cleanup", c.at()));
    a.refresh();
  }

  private static FaqLearning learning(LiveFaq live) {
    return new FaqLearning(live, Redactor.ALL_KINDS, Clock.systemUTC(), new SimpleMeterRegistry());
  }

  private static void assertRejected(Runnable call, String message) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            ChangeRejected.class, e -> assertThat(e.why()).isEqualTo(ChangeRejected.Why.INVALID))
        .hasMessageContaining(message);
  }
}
