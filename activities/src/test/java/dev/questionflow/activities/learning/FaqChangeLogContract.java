package dev.questionflow.activities.learning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What every {@link FaqChangeLog} does; each implementation's test runs these. */
abstract class FaqChangeLogContract {

  static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

  /** A new, empty log (the same storage each time it is called within one test). */
  abstract FaqChangeLog log();

  @Test
  void changesGetVersionsInOrderAndKeepWhoWhenAndWhichTicket() {
    FaqChangeLog log = log();
    long rev0 = log.revision();
    FaqChange first =
        log.append(
            FaqChange.phrasing("card_arrival", "where is my card", "T-1", "alice", T0), false);
    FaqChange second =
        log.append(
            FaqChange.entry(
                "branch_hours",
                "When are branches open?",
                "9 to 5",
                "branch open when?",
                "T-2",
                "bob",
                T0.plusSeconds(5)),
            false);
    assertThat(first.version()).isEqualTo(1);
    assertThat(second.version()).isEqualTo(2);
    assertThat(log.revision()).isNotEqualTo(rev0);
    assertThat(log.all()).containsExactly(first, second);
    FaqChange read = log.all().get(1);
    assertThat(read.kind()).isEqualTo(FaqChange.Kind.ADD_ENTRY);
    assertThat(read.entryId()).isEqualTo("branch_hours");
    assertThat(read.question()).isEqualTo("When are branches open?");
    assertThat(read.answer()).isEqualTo("9 to 5");
    assertThat(read.text()).isEqualTo("branch open when?");
    assertThat(read.ticketId()).isEqualTo("T-2");
    assertThat(read.agent()).isEqualTo("bob");
    assertThat(read.at()).isEqualTo(T0.plusSeconds(5));
    assertThat(read.reverted()).isFalse();
  }

  @Test
  void aRevertIsRecordedOnceAndMovesTheRevision() {
    FaqChangeLog log = log();
    FaqChange c =
        log.append(
            FaqChange.phrasing("card_arrival", "where is my card", "T-1", "alice", T0), false);
    long before = log.revision();
    FaqChange reverted = log.revert(c.version(), "admin", T0.plusSeconds(60));
    assertThat(reverted.revertedBy()).isEqualTo("admin");
    assertThat(log.revision()).isNotEqualTo(before);
    FaqChange read = log.all().get(0);
    assertThat(read.reverted()).isTrue();
    assertThat(read.revertedBy()).isEqualTo("admin");
    assertThat(read.revertedAt()).isEqualTo(T0.plusSeconds(60));
    assertThat(read.text()).isEqualTo("where is my card");

    long after = log.revision();
    assertThatThrownBy(() -> log.revert(c.version(), "other", T0))
        .isInstanceOfSatisfying(
            ChangeRejected.class, e -> assertThat(e.why()).isEqualTo(ChangeRejected.Why.CONFLICT))
        .hasMessageContaining("already reverted by admin");
    assertThatThrownBy(() -> log.revert(99, "admin", T0))
        .isInstanceOfSatisfying(
            ChangeRejected.class, e -> assertThat(e.why()).isEqualTo(ChangeRejected.Why.NOT_FOUND));
    assertThat(log.revision()).isEqualTo(after);
    assertThat(log.all().get(0).revertedBy()).isEqualTo("admin");
  }

  @Test
  void aLearnedEntryIdIsTakenWhileLiveAndCannotBeRevertedWhileItHasPhrasings() {
    FaqChangeLog log = log();
    FaqChange entry =
        log.append(FaqChange.entry("branch_hours", "q", "a", "q", "T-1", "alice", T0), false);
    assertThatThrownBy(
            () ->
                log.append(
                    FaqChange.entry("branch_hours", "q2", "a2", "q2", "T-2", "bob", T0), false))
        .isInstanceOfSatisfying(
            ChangeRejected.class, e -> assertThat(e.why()).isEqualTo(ChangeRejected.Why.INVALID))
        .hasMessageContaining("already exists");
    FaqChange phrasing =
        log.append(FaqChange.phrasing("branch_hours", "opening times", "T-3", "bob", T0), true);
    assertThatThrownBy(() -> log.revert(entry.version(), "admin", T0))
        .isInstanceOfSatisfying(
            ChangeRejected.class, e -> assertThat(e.why()).isEqualTo(ChangeRejected.Why.CONFLICT))
        .hasMessageContaining("revert those first");
    log.revert(phrasing.version(), "admin", T0);
    log.revert(entry.version(), "admin", T0);
    // gone: a phrasing of it is refused, and its id is free again
    assertThatThrownBy(
            () ->
                log.append(FaqChange.phrasing("branch_hours", "when open", "T-4", "bob", T0), true))
        .isInstanceOfSatisfying(
            ChangeRejected.class, e -> assertThat(e.why()).isEqualTo(ChangeRejected.Why.INVALID));
    assertThat(
            log.append(FaqChange.entry("branch_hours", "q3", "a3", "q3", "T-5", "carol", T0), false)
                .version())
        .isEqualTo(3);
    assertThat(log.all()).hasSize(3);
  }
}
