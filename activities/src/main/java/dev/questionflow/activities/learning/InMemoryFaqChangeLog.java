package dev.questionflow.activities.learning;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The change log in this process's memory: for the zero-install trial only (not shared between
 * instances, lost when the process stops; the configuration logs a WARN saying so).
 */
public final class InMemoryFaqChangeLog implements FaqChangeLog {

  private final List<FaqChange> changes = new ArrayList<>();
  private final Map<String, Integer> liveEntries = new HashMap<>();
  private final Map<String, Integer> livePhrasings = new HashMap<>();
  private long revision;

  @Override
  public synchronized FaqChange append(FaqChange change, boolean learnedEntry) {
    if (change.kind() == FaqChange.Kind.ADD_ENTRY && liveEntries.containsKey(change.entryId())) {
      throw new ChangeRejected(
          ChangeRejected.Why.INVALID, "entry '" + change.entryId() + "' already exists");
    }
    if (learnedEntry && !liveEntries.containsKey(change.entryId())) {
      throw new ChangeRejected(
          ChangeRejected.Why.INVALID, "no entry '" + change.entryId() + "' (it was reverted)");
    }
    FaqChange appended = change.withVersion(changes.size() + 1L);
    changes.add(appended);
    if (change.kind() == FaqChange.Kind.ADD_ENTRY) {
      liveEntries.put(change.entryId(), 1);
    } else {
      livePhrasings.merge(change.entryId(), 1, Integer::sum);
    }
    revision++;
    return appended;
  }

  @Override
  public synchronized FaqChange revert(long version, String by, Instant at) {
    if (version < 1 || version > changes.size()) {
      throw new ChangeRejected(ChangeRejected.Why.NOT_FOUND, "no pack change " + version);
    }
    FaqChange change = changes.get((int) version - 1);
    if (change.reverted()) {
      throw new ChangeRejected(
          ChangeRejected.Why.CONFLICT,
          "pack change " + version + " was already reverted by " + change.revertedBy());
    }
    if (change.kind() == FaqChange.Kind.ADD_ENTRY
        && livePhrasings.getOrDefault(change.entryId(), 0) > 0) {
      throw new ChangeRejected(ChangeRejected.Why.CONFLICT, stillUsed(change.entryId()));
    }
    FaqChange reverted = change.revertedBy(by, at);
    changes.set((int) version - 1, reverted);
    if (change.kind() == FaqChange.Kind.ADD_ENTRY) {
      liveEntries.remove(change.entryId());
    } else {
      livePhrasings.merge(change.entryId(), -1, Integer::sum);
    }
    revision++;
    return reverted;
  }

  static String stillUsed(String entryId) {
    return "entry '" + entryId + "' still has live phrasings added to it: revert those first";
  }

  @Override
  public synchronized List<FaqChange> all() {
    return List.copyOf(changes);
  }

  @Override
  public synchronized long revision() {
    return revision;
  }

  @Override
  public String kind() {
    return "in-memory";
  }
}
