package dev.questionflow.faq;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Test helper: the datasets committed under {@code faq-index/datasets} (BANKING77's training split,
 * CLINC150's out-of-scope questions; their licences in each folder's README).
 */
final class Datasets {

  /** A labelled question. */
  record Example(String text, String label) {}

  /** A stratified split of train.csv. */
  record Split(List<Example> train, List<Example> validation) {}

  private Datasets() {}

  /** {@code faq-index/datasets} (tests run in the module's directory). */
  static Path root() {
    return Path.of("").toAbsolutePath().resolve("datasets").normalize();
  }

  static Path banking77() {
    return root().resolve("banking77");
  }

  static boolean banking77Present() {
    return Files.isRegularFile(banking77().resolve("train.csv"));
  }

  static boolean oosPresent() {
    return Files.isRegularFile(root().resolve("clinc150-oos/oos_val.tsv"));
  }

  /**
   * Fails a test whose datasets are missing: they are part of the repository, so a measurement that
   * silently stopped running would be a defect.
   */
  static void require(boolean present, String what) {
    if (!present) {
      throw new AssertionError(what + " not found under " + root());
    }
  }

  static String normalise(String s) {
    return String.join(" ", s.trim().split("\\s+"));
  }

  /**
   * The held-out split every BANKING77 figure is measured on: the committed {@code
   * eval/banking77-validation.tsv} ({@link ValidationSplitFileTest} proves it is the seeded 10 % of
   * train.csv), read as {@code bin/faq eval} reads it.
   */
  static List<FaqEvaluation.LabeledQuestion> banking77Validation() {
    return FaqEvaluation.readLabeled(ValidationSplitFileTest.FILE);
  }

  /** The BANKING77 pack as the figures see it: without the validation questions. */
  static FaqPack banking77Unseen() {
    return FaqEvaluation.unseen(FaqPacks.loadFromClasspath("banking77"), banking77Validation());
  }

  static List<Example> banking77Train() {
    List<List<String>> rows = readCsv(banking77().resolve("train.csv"));
    List<Example> out = new ArrayList<>();
    for (List<String> row : rows.subList(1, rows.size())) { // header text,category
      out.add(new Example(normalise(row.get(0)), row.get(1)));
    }
    return out;
  }

  /**
   * The questions of a CLINC150 out-of-scope file ({@code oos_train.tsv} or {@code oos_val.tsv}).
   */
  static List<String> oos(String file) {
    try {
      List<String> lines =
          Files.readAllLines(root().resolve("clinc150-oos").resolve(file), StandardCharsets.UTF_8);
      List<String> out = new ArrayList<>();
      for (String line : lines.subList(1, lines.size())) {
        if (!line.isBlank()) {
          out.add(line.split("\t", 2)[0]);
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@link FaqEvaluation#stratifiedSplit}, the split the figures are measured on, over {@link
   * Example}s.
   */
  static Split stratified(List<Example> all, double fraction, long seed) {
    List<FaqEvaluation.LabeledQuestion> questions =
        all.stream().map(e -> new FaqEvaluation.LabeledQuestion(e.text(), e.label())).toList();
    FaqEvaluation.Split split = FaqEvaluation.stratifiedSplit(questions, fraction, seed);
    return new Split(examples(split.train()), examples(split.heldOut()));
  }

  private static List<Example> examples(List<FaqEvaluation.LabeledQuestion> questions) {
    return questions.stream().map(q -> new Example(q.text(), q.faqId())).toList();
  }

  /** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks. */
  static List<List<String>> readCsv(Path file) {
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      List<List<String>> rows = new ArrayList<>();
      List<String> row = new ArrayList<>();
      StringBuilder field = new StringBuilder();
      boolean quoted = false;
      boolean any = false;
      int c;
      while ((c = r.read()) != -1) {
        any = true;
        char ch = (char) c;
        if (quoted) {
          if (ch == '"') {
            r.mark(1);
            int next = r.read();
            if (next == '"') {
              field.append('"');
            } else {
              quoted = false;
              if (next != -1) {
                r.reset();
              }
            }
          } else {
            field.append(ch);
          }
        } else if (ch == '"') {
          quoted = true;
        } else if (ch == ',') {
          row.add(field.toString());
          field.setLength(0);
        } else if (ch == '\n' || ch == '\r') {
          if (ch == '\r') {
            r.mark(1);
            if (r.read() != '\n') {
              r.reset();
            }
          }
          row.add(field.toString());
          field.setLength(0);
          if (!(row.size() == 1 && row.get(0).isEmpty())) {
            rows.add(row);
          }
          row = new ArrayList<>();
          any = false;
        } else {
          field.append(ch);
        }
      }
      if (any) {
        row.add(field.toString());
        rows.add(row);
      }
      return rows;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
