package dev.questionflow.faq;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/** How {@link Calibrator} splits a pack's training side: k stratified folds, or one fixed split. */
final class CalibrationSplits {

  private CalibrationSplits() {}

  /** The pack's out-of-scope examples not held out, shuffled and dealt round-robin into k folds. */
  static Map<String, Integer> exampleFolds(FaqPack pack, Set<String> heldOut, int k, long seed) {
    Set<String> drop = FaqEvaluation.normalised(heldOut);
    Set<String> distinct = new LinkedHashSet<>(); // in file order, so the seed alone deals them
    for (String q : pack.outOfScope()) {
      String n = FaqEvaluation.normalise(q);
      if (!drop.contains(n)) {
        distinct.add(n);
      }
    }
    List<String> examples = new ArrayList<>(distinct);
    Collections.shuffle(examples, new Random(seed));
    Map<String, Integer> folds = new LinkedHashMap<>();
    for (int i = 0; i < examples.size(); i++) {
      folds.put(examples.get(i), i % k);
    }
    return folds;
  }

  /** The pack's phrasings without the held-out texts (compared as {@link FaqEvaluation} does). */
  static List<LabeledQuestion> training(FaqPack pack, Set<String> heldOut) {
    Set<String> drop = FaqEvaluation.normalised(heldOut);
    Set<String> seen = new HashSet<>();
    List<LabeledQuestion> out = new ArrayList<>();
    for (FaqEntry e : pack.entries()) {
      for (String p : e.phrasings()) {
        String n = FaqEvaluation.normalise(p);
        if (!drop.contains(n) && seen.add(n)) {
          out.add(new LabeledQuestion(n, e.id()));
        }
      }
    }
    return out;
  }

  /** Per entry, shuffled with {@code new Random(seed)} and dealt round-robin into k folds. */
  static List<List<LabeledQuestion>> folds(List<LabeledQuestion> all, int k, long seed) {
    if (k < 2) {
      throw new IllegalArgumentException("k-fold needs at least 2 folds, not " + k);
    }
    Map<String, List<LabeledQuestion>> byEntry = new LinkedHashMap<>();
    all.forEach(q -> byEntry.computeIfAbsent(q.faqId(), x -> new ArrayList<>()).add(q));
    List<List<LabeledQuestion>> folds = new ArrayList<>();
    for (int f = 0; f < k; f++) {
      folds.add(new ArrayList<>());
    }
    Random random = new Random(seed);
    int next = 0;
    for (List<LabeledQuestion> group : byEntry.values()) {
      List<LabeledQuestion> shuffled = new ArrayList<>(group);
      Collections.shuffle(shuffled, random);
      for (LabeledQuestion q : shuffled) {
        folds.get(next++ % k).add(q);
      }
    }
    return folds;
  }

  /** The split's questions, each checked to be a phrasing of its entry on the training side. */
  static List<LabeledQuestion> splitFold(
      List<LabeledQuestion> training, List<LabeledQuestion> split) {
    Map<String, String> entryOf = new HashMap<>();
    training.forEach(q -> entryOf.put(q.text(), q.faqId()));
    Set<String> seen = new HashSet<>();
    List<LabeledQuestion> fold = new ArrayList<>();
    for (LabeledQuestion q : split) {
      String n = FaqEvaluation.normalise(q.text());
      if (!q.faqId().equals(entryOf.get(n))) {
        throw new IllegalArgumentException(
            "split question '"
                + q.text()
                + "' is not a phrasing of entry "
                + q.faqId()
                + " outside the held-out files");
      }
      if (seen.add(n)) {
        fold.add(new LabeledQuestion(n, q.faqId()));
      }
    }
    return fold;
  }
}
