package dev.questionflow.faq.cli;

import dev.questionflow.faq.FaqEntry;
import dev.questionflow.faq.FaqMatch;
import dev.questionflow.faq.FaqMatcher;
import dev.questionflow.faq.FaqPack;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

/** Accuracy, abstention and confusions of a matcher on labelled questions (and out-of-scope ones). */
final class Evaluation {

  record Labeled(String text, String label) {}

  record Report(
      int questions,
      double top1Accuracy,
      double answerRate,
      double accuracyOfAnswered,
      int outOfScope,
      double outOfScopeAbstention,
      List<Map.Entry<String, Integer>> confusedPairs,
      long millis) {

    void print(PrintStream out, String pack, String level, Path labeled, List<Path> oos) {
      out.printf("pack %s, level %s, labelled %s (%d questions, unseen: removed from the phrasings)%n",
          pack, level, labeled, questions);
      out.printf("top-1 accuracy            %6.2f%%%n", 100 * top1Accuracy);
      out.printf("answered (not abstained)  %6.2f%%%n", 100 * answerRate);
      out.printf("accuracy of answered      %6.2f%%%n", 100 * accuracyOfAnswered);
      out.printf("abstention rate           %6.2f%%%n", 100 * (1 - answerRate));
      if (outOfScope > 0) {
        out.printf("out-of-scope abstention   %6.2f%% of %d (%s)%n", 100 * outOfScopeAbstention, outOfScope, oos);
      }
      out.printf("most confused (gold -> predicted: count):%n");
      confusedPairs.forEach(pair -> out.printf("  %s: %d%n", pair.getKey(), pair.getValue()));
      out.printf("evaluated in %d ms%n", millis);
    }
  }

  private Evaluation() {}

  /** Reads {@code text<TAB>label} lines; a first line {@code text<TAB>label} is a header. */
  static List<Labeled> readLabeled(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      List<Labeled> labeled = new ArrayList<>();
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.isBlank() || (i == 0 && line.startsWith("text\t"))) {
          continue;
        }
        String[] parts = line.split("\t", 2);
        if (parts.length < 2) {
          throw new IllegalArgumentException(file + ", line " + (i + 1) + ": expected text<TAB>label");
        }
        labeled.add(new Labeled(parts[0].strip(), parts[1].strip()));
      }
      return labeled;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** The pack without any phrasing equal (whitespace- and case-insensitively) to a labelled question. */
  static FaqPack withoutPhrasings(FaqPack pack, List<Labeled> labeled) {
    Set<String> held = new HashSet<>();
    labeled.forEach(l -> held.add(key(l.text())));
    List<FaqEntry> entries =
        pack.entries().stream()
            .map(e -> new FaqEntry(e.id(), e.question(), e.answer(),
                e.phrasings().stream().filter(p -> !held.contains(key(p))).toList(), e.keywords(), e.category()))
            .toList();
    return new FaqPack(pack.id(), pack.name(), pack.language(), pack.attribution(), entries, pack.intentRules());
  }

  private static String key(String text) {
    return String.join(" ", text.strip().toLowerCase(java.util.Locale.ROOT).split("\\s+"));
  }

  static Report evaluate(FaqMatcher matcher, List<Labeled> labeled, List<String> outOfScope) {
    long started = System.nanoTime();
    List<Optional<FaqMatch>> best = parallel(labeled.size(), i -> matcher.best(labeled.get(i).text()));
    List<List<FaqMatch>> top = parallel(labeled.size(), i -> matcher.search(labeled.get(i).text(), 1));
    int top1 = 0;
    int answered = 0;
    int answeredRight = 0;
    Map<String, Integer> confusions = new HashMap<>();
    for (int i = 0; i < labeled.size(); i++) {
      String gold = labeled.get(i).label();
      List<FaqMatch> ranked = top.get(i);
      String predicted = ranked.isEmpty() ? null : ranked.get(0).faqId();
      if (gold.equals(predicted)) {
        top1++;
      } else {
        confusions.merge(gold + " -> " + predicted, 1, Integer::sum);
      }
      if (best.get(i).isPresent()) {
        answered++;
        if (best.get(i).get().faqId().equals(gold)) {
          answeredRight++;
        }
      }
    }
    List<Optional<FaqMatch>> oos = parallel(outOfScope.size(), i -> matcher.best(outOfScope.get(i)));
    long abstained = oos.stream().filter(Optional::isEmpty).count();
    List<Map.Entry<String, Integer>> confused =
        confusions.entrySet().stream()
            .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder())
                .thenComparing(Map.Entry.comparingByKey()))
            .limit(10)
            .toList();
    int n = labeled.size();
    return new Report(
        n,
        n == 0 ? 0 : top1 / (double) n,
        n == 0 ? 0 : answered / (double) n,
        answered == 0 ? 0 : answeredRight / (double) answered,
        outOfScope.size(),
        outOfScope.isEmpty() ? 0 : abstained / (double) outOfScope.size(),
        confused,
        (System.nanoTime() - started) / 1_000_000);
  }

  private static <T> List<T> parallel(int size, java.util.function.IntFunction<T> work) {
    return IntStream.range(0, size).parallel().mapToObj(work).toList();
  }
}
