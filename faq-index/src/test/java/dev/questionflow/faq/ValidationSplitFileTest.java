package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The committed validation file faq-index/eval/banking77-validation.tsv is exactly the stratified
 * 10% split (seed 42) of BANKING77 train.csv that the figures are measured on. Run with
 * -Dfaq.writeSplit=true to (re)write it.
 */
class ValidationSplitFileTest {

  static final Path FILE = Path.of("eval", "banking77-validation.tsv");

  static List<String> expectedLines() {
    Datasets.Split split = Datasets.stratified(Datasets.banking77Train(), 0.10, 42);
    List<String> lines = new ArrayList<>();
    lines.add("text\tlabel");
    for (Datasets.Example e : split.validation()) {
      lines.add(e.text().replace('\t', ' ') + "\t" + e.label());
    }
    return lines;
  }

  @Test
  void committedFileIsTheSeededStratifiedSplit() throws Exception {
    Datasets.require(Datasets.banking77Present(), "the BANKING77 dataset");
    List<String> expected = expectedLines();
    if (Boolean.getBoolean("faq.writeSplit")) {
      Files.write(FILE, expected, StandardCharsets.UTF_8);
    }
    assertThat(Files.readAllLines(FILE, StandardCharsets.UTF_8)).isEqualTo(expected);
  }
}
