package dev.questionflow.faq.cli;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads labelled files for {@code bin/faq eval}; the measuring itself is {@link
 * dev.questionflow.faq.FaqEvaluation}.
 */
final class Evaluation {

  private Evaluation() {}

  /**
   * Out-of-scope questions: the first column of each line; a first line {@code text} (or {@code
   * text<TAB>…}) is a header.
   */
  static List<String> readTexts(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      List<String> texts = new ArrayList<>();
      for (int i = 0; i < lines.size(); i++) {
        String text = lines.get(i).split("\t", 2)[0].strip();
        if (!text.isEmpty() && !(i == 0 && text.equals("text"))) {
          texts.add(text);
        }
      }
      return texts;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /**
   * Reads {@code text<TAB>label} lines; a first line starting with {@code text<TAB>} is a header.
   */
  static List<LabeledQuestion> readLabeled(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      List<LabeledQuestion> labeled = new ArrayList<>();
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.isBlank() || (i == 0 && line.startsWith("text\t"))) {
          continue;
        }
        String[] parts = line.split("\t", 2);
        if (parts.length < 2) {
          throw new FaqCli.UsageException(file + ", line " + (i + 1) + ": expected text<TAB>label");
        }
        labeled.add(new LabeledQuestion(parts[0].strip(), parts[1].strip()));
      }
      return labeled;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
