package dev.questionflow.faq;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

/**
 * Offline evaluation of a {@link FaqMatcher} (used by the tests and by {@code bin/faq eval}).
 *
 * <pre>{@code
 * List<LabeledQuestion> all = ...;                                      // e.g. BANKING77 train.csv
 * Split split = FaqEvaluation.stratifiedSplit(all, 0.10, 42);          // the split behind the README figures
 * FaqPack train = FaqEvaluation.withoutPhrasings(pack, FaqEvaluation.texts(split.heldOut()));
 * try (SemanticFaqIndex m = SemanticFaqIndex.build(train)) {
 *     Report r = FaqEvaluation.evaluate(m, split.heldOut(), oosQuestions);
 *     System.out.println(r.summary());
 * }
 * }</pre>
 */
public final class FaqEvaluation {

  private FaqEvaluation() {}

  /** A question with the id of the FAQ entry that should answer it. */
  public record LabeledQuestion(String text, String faqId) {
    public LabeledQuestion {
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(faqId, "faqId");
    }
  }

  /** A train / held-out split. */
  public record Split(List<LabeledQuestion> train, List<LabeledQuestion> heldOut) {}

  /**
   * How often the matcher predicted {@code predicted} for a question of {@code gold} (top-1, no
   * abstention).
   */
  public record Confusion(String gold, String predicted, int count) {}

  /**
   * Evaluation figures; rates are in [0, 1].
   *
   * @param questions in-scope questions evaluated
   * @param accuracy top-1 of {@link FaqMatcher#search} (no abstention) correct, over all in-scope
   *     questions
   * @param answerRate share of in-scope questions {@link FaqMatcher#best} answered (did not abstain
   *     on)
   * @param answeredAccuracy share of those answers that were correct
   * @param correctAnswered share of all in-scope questions answered correctly by {@code best}
   * @param outOfScope out-of-scope questions evaluated
   * @param oosAbstention share of out-of-scope questions {@code best} abstained on (NaN when there
   *     are none)
   * @param confusions most frequent top-1 mistakes, most frequent first (at most 20)
   */
  public record Report(
      int questions,
      double accuracy,
      double answerRate,
      double answeredAccuracy,
      double correctAnswered,
      int outOfScope,
      double oosAbstention,
      List<Confusion> confusions) {

    /** Multi-line human-readable summary. */
    public String summary() {
      StringBuilder sb = new StringBuilder();
      sb.append(String.format("in-scope questions            %d%n", questions));
      sb.append(String.format("top-1 accuracy (no abstention) %.2f%%%n", 100 * accuracy));
      sb.append(String.format("answer rate (best answers)     %.2f%%%n", 100 * answerRate));
      sb.append(String.format("accuracy of answers            %.2f%%%n", 100 * answeredAccuracy));
      sb.append(String.format("correct answers of all         %.2f%%%n", 100 * correctAnswered));
      sb.append(String.format("out-of-scope questions         %d%n", outOfScope));
      sb.append(String.format("OOS abstention                 %.2f%%%n", 100 * oosAbstention));
      if (!confusions.isEmpty()) {
        sb.append("most confused (gold -> predicted: count)\n");
        for (Confusion c : confusions.subList(0, Math.min(10, confusions.size()))) {
          sb.append(String.format("  %s -> %s: %d%n", c.gold(), c.predicted(), c.count()));
        }
      }
      return sb.toString();
    }
  }

  /**
   * Evaluates a matcher: top-1 accuracy via {@code search(text, 1)}, answers/abstentions via {@code
   * best(text)}.
   *
   * @param labeled in-scope questions with their expected FAQ id
   * @param outOfScope questions no entry covers (the matcher should abstain); may be empty
   */
  public static Report evaluate(
      FaqMatcher matcher, List<LabeledQuestion> labeled, List<String> outOfScope) {
    int top1 = 0;
    int answered = 0;
    int answeredCorrect = 0;
    Map<List<String>, Integer> confusion = new HashMap<>();
    for (LabeledQuestion q : labeled) {
      List<FaqMatch> ranked = matcher.search(q.text(), 1);
      String predicted = ranked.isEmpty() ? "(none)" : ranked.get(0).faqId();
      if (predicted.equals(q.faqId())) {
        top1++;
      } else {
        confusion.merge(List.of(q.faqId(), predicted), 1, Integer::sum);
      }
      Optional<FaqMatch> best = matcher.best(q.text());
      if (best.isPresent()) {
        answered++;
        if (best.get().faqId().equals(q.faqId())) {
          answeredCorrect++;
        }
      }
    }
    int abstained = 0;
    for (String q : outOfScope) {
      if (matcher.best(q).isEmpty()) {
        abstained++;
      }
    }
    List<Confusion> confusions = new ArrayList<>();
    confusion.forEach((k, v) -> confusions.add(new Confusion(k.get(0), k.get(1), v)));
    confusions.sort(
        Comparator.comparingInt(Confusion::count)
            .reversed()
            .thenComparing(Confusion::gold)
            .thenComparing(Confusion::predicted));
    int n = labeled.size();
    return new Report(
        n,
        ratio(top1, n),
        ratio(answered, n),
        ratio(answeredCorrect, answered),
        ratio(answeredCorrect, n),
        outOfScope.size(),
        ratio(abstained, outOfScope.size()),
        List.copyOf(confusions.subList(0, Math.min(20, confusions.size()))));
  }

  /**
   * Per FAQ id (in order of first appearance), a shuffle with {@code new Random(seed)}; the first
   * {@code round(n * fraction)} (at least 1) questions are held out. Texts that are held out are
   * also removed from the training side (duplicates). Same split as the README figures for ({@code
   * 0.10}, {@code 42}).
   */
  public static Split stratifiedSplit(List<LabeledQuestion> all, double fraction, long seed) {
    Map<String, List<LabeledQuestion>> byLabel = new LinkedHashMap<>();
    for (LabeledQuestion q : all) {
      byLabel.computeIfAbsent(q.faqId(), k -> new ArrayList<>()).add(q);
    }
    Random random = new Random(seed);
    List<LabeledQuestion> train = new ArrayList<>();
    List<LabeledQuestion> heldOut = new ArrayList<>();
    for (List<LabeledQuestion> group : byLabel.values()) {
      List<LabeledQuestion> shuffled = new ArrayList<>(group);
      Collections.shuffle(shuffled, random);
      int n = Math.max(1, (int) Math.round(shuffled.size() * fraction));
      heldOut.addAll(shuffled.subList(0, n));
      train.addAll(shuffled.subList(n, shuffled.size()));
    }
    Set<String> held = new HashSet<>(texts(heldOut));
    train.removeIf(q -> held.contains(q.text()));
    return new Split(List.copyOf(train), List.copyOf(heldOut));
  }

  /**
   * The pack as an evaluation sees it: without the held-out questions among its phrasings, so they
   * are unseen. The one split every measurement uses ({@code bin/faq eval}, the tests, {@link
   * Calibrator}).
   */
  public static FaqPack unseen(FaqPack pack, Collection<LabeledQuestion> heldOut) {
    return withoutPhrasings(pack, texts(heldOut));
  }

  /**
   * {@link #unseen(FaqPack, Collection)}, and without the held-out out-of-scope questions among its
   * out-of-scope examples.
   */
  public static FaqPack unseen(
      FaqPack pack, Collection<LabeledQuestion> heldOut, Collection<String> outOfScope) {
    List<String> drop = new ArrayList<>(texts(heldOut));
    drop.addAll(outOfScope);
    return withoutPhrasings(pack, drop);
  }

  /**
   * Reads {@code text<TAB>label} lines; a first line starting with {@code text<TAB>} is a header.
   *
   * @throws IllegalArgumentException for a line without a label
   */
  public static List<LabeledQuestion> readLabeled(java.nio.file.Path file) {
    List<String> lines = lines(file);
    List<LabeledQuestion> labeled = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank() || (i == 0 && line.startsWith("text\t"))) {
        continue;
      }
      String[] parts = line.split("\t", 2);
      if (parts.length < 2 || parts[1].isBlank()) {
        throw new IllegalArgumentException(
            file + ", line " + (i + 1) + ": expected text<TAB>label");
      }
      labeled.add(new LabeledQuestion(parts[0].strip(), parts[1].strip()));
    }
    return labeled;
  }

  /**
   * Unlabelled questions (out of scope): the first column of each line; a first line {@code text}
   * (or {@code text<TAB>...}) is a header.
   */
  public static List<String> readTexts(java.nio.file.Path file) {
    List<String> lines = lines(file);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String text = lines.get(i).split("\t", 2)[0].strip();
      if (!text.isEmpty() && !(i == 0 && text.equals("text"))) {
        texts.add(text);
      }
    }
    return texts;
  }

  private static List<String> lines(java.nio.file.Path file) {
    try {
      return java.nio.file.Files.readAllLines(file, java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot read " + file, e);
    }
  }

  /** The texts of the questions. */
  public static List<String> texts(Collection<LabeledQuestion> questions) {
    return questions.stream().map(LabeledQuestion::text).toList();
  }

  /**
   * The pack without the given phrasings and out-of-scope examples (compared after trimming and
   * collapsing whitespace), so that evaluation questions are not found verbatim; standard
   * questions, answers and keywords are kept.
   */
  public static FaqPack withoutPhrasings(FaqPack pack, Collection<String> texts) {
    Set<String> drop = normalised(texts);
    List<FaqEntry> entries = new ArrayList<>();
    for (FaqEntry e : pack.entries()) {
      List<String> kept = e.phrasings().stream().filter(p -> !drop.contains(normalise(p))).toList();
      entries.add(new FaqEntry(e.id(), e.question(), e.answer(), kept, e.keywords(), e.category()));
    }
    return new FaqPack(
        pack.id(),
        pack.name(),
        pack.language(),
        pack.attribution(),
        entries,
        pack.intentRules(),
        pack.outOfScope().stream().filter(q -> !drop.contains(normalise(q))).toList(),
        pack.encoder());
  }

  /** The texts {@link #normalise}d, as a set to look phrasings up in. */
  static Set<String> normalised(Collection<String> texts) {
    Set<String> out = new HashSet<>();
    texts.forEach(t -> out.add(normalise(t)));
    return out;
  }

  /** Trimmed, whitespace collapsed: how held-out texts are compared with phrasings. */
  static String normalise(String s) {
    return String.join(" ", s.strip().split("\\s+"));
  }

  private static double ratio(int a, int b) {
    return b == 0 ? Double.NaN : a / (double) b;
  }
}
