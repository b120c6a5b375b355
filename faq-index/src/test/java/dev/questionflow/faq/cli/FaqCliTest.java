package dev.questionflow.faq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/faq's commands at the keyword level (no model needed): output shape, order, abstention, eval
 * figures.
 */
class FaqCliTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path indexDir;

  private String run(String stdin, String... args) {
    InputStream originalIn = System.in;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
      FaqCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    } finally {
      System.setIn(originalIn);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void matchPrintsOneJsonLinePerQuestionInInputOrder() throws Exception {
    String questions =
        String.join(
            "\n",
            List.of(
                "I still have not received my new card",
                "What is the airspeed velocity of an unladen swallow?",
                "",
                "How do I top up with cash?"));

    List<String> lines =
        run(
                questions,
                "match",
                "--pack",
                "banking77",
                "--level",
                "keyword",
                "--index-dir",
                indexDir.toString())
            .lines()
            .toList();

    assertThat(lines).hasSize(4);
    JsonNode first = JSON.readTree(lines.get(0));
    assertThat(first.get("text").asText()).isEqualTo("I still have not received my new card");
    assertThat(first.get("faqId").asText()).isEqualTo("card_arrival");
    assertThat(first.get("level").asText()).isEqualTo("keyword");
    assertThat(first.get("score").asDouble()).isBetween(0.0, 1.0);
    assertThat(JSON.readTree(lines.get(1)).get("faqId").isNull()).isTrue();
    assertThat(JSON.readTree(lines.get(2)).get("faqId").isNull())
        .as("an empty line abstains")
        .isTrue();
    assertThat(JSON.readTree(lines.get(3)).get("text").asText())
        .isEqualTo("How do I top up with cash?");
  }

  @Test
  void evalRemovesTheLabelledQuestionsAndReportsAccuracyAndAbstention() throws Exception {
    Path labeled = indexDir.resolve("labeled.tsv");
    Files.writeString(
        labeled,
        "text\tlabel\nI still have not received my new card\tcard_arrival\n"
            + "My card still hasn't arrived after 2 weeks. Is it lost?\tcard_arrival\n");
    Path oos = indexDir.resolve("oos.tsv");
    Files.writeString(oos, "text\nWhat is the airspeed velocity of an unladen swallow?\n");

    String report =
        run(
            "",
            "eval",
            "--pack",
            "banking77",
            "--level",
            "keyword",
            "--labeled",
            labeled.toString(),
            "--oos",
            oos.toString(),
            "--index-dir",
            indexDir.toString());

    assertThat(report)
        .contains("in-scope questions            2")
        .contains("OOS abstention                 100.00%");
    assertThat(report).containsPattern("top-1 accuracy \\(no abstention\\) (50|100)\\.00%");
  }

  @Test
  void learnCurvePrintsTheHitRatePerBlockForBothStreamsAndWritesThemAsJson() throws Exception {
    Path questions = indexDir.resolve("questions.tsv");
    Files.writeString(
        questions,
        "text\tlabel\nI still have not received my new card\tcard_arrival\n"
            + "How do I top up with cash?\ttop_up_by_cash_or_cheque\n"
            + "my card has still not arrived\tcard_arrival\n");
    Path json = indexDir.resolve("curve.json");

    String printed =
        run(
            "",
            "learn-curve",
            "--pack",
            "banking77",
            "--level",
            "keyword",
            "--questions",
            questions.toString(),
            "--block",
            "2",
            "--phrasing-stream",
            "5",
            "--out",
            json.toString(),
            "--index-dir",
            indexDir.toString());

    assertThat(printed)
        .contains("start: the first 3 phrasings of each of the 77 entries")
        .contains("(3 questions)")
        .contains("(5 questions)")
        .containsPattern("\\n  1-2 +\\d+\\.\\d\\d %")
        .containsPattern("\\n  3-3 +\\d+\\.\\d\\d %")
        .contains("note: 3 held-out questions make only 1 full block(s) of 2");
    JsonNode curve = JSON.readTree(json.toFile());
    assertThat(curve.get("streams")).hasSize(2);
    JsonNode heldOut = curve.get("streams").get(0);
    assertThat(heldOut.get("questions").asInt()).isEqualTo(3);
    assertThat(heldOut.get("blocks")).hasSize(2);
    assertThat(curve.get("streams").get(1).get("blocks")).hasSize(3);
  }

  /** The figures' shape only: timing assertions would fail on a busy machine, not on a bug. */
  @Test
  void benchPrintsWarmUpLatencyAndThroughput() throws Exception {
    Path questions = indexDir.resolve("questions.tsv");
    Files.writeString(
        questions,
        "text\tlabel\nI still have not received my new card\tcard_arrival\n"
            + "How do I top up with cash?\ttop_up_by_cash_or_cheque\n");

    String printed =
        run(
            "",
            "bench",
            "--pack",
            "banking77",
            "--level",
            "keyword",
            "--questions",
            questions.toString(),
            "--seconds",
            "1",
            "--index-dir",
            indexDir.toString());

    assertThat(printed)
        .contains("bench: pack banking77, level keyword, 2 distinct questions")
        .containsPattern("warm-up: [0-9,]+ matches in \\d+ rounds")
        .containsPattern("uncached, 1 thread: +p50 [0-9.]+ ms, p90 [0-9.]+ ms, p99 [0-9.]+ ms")
        .containsPattern("CPU time p50 [0-9.]+ ms, p99 [0-9.]+ ms")
        .containsPattern("uncached, 2 threads: +[0-9.]+ matches/s");
  }

  @Test
  void badArgumentsAreUsageErrors() {
    assertThatThrownBy(() -> run("", "match")).hasMessageContaining("--pack is required");
    assertThatThrownBy(() -> run("", "match", "--pack", "banking77", "--level", "fuzzy"))
        .hasMessageContaining("semantic or keyword");
    assertThatThrownBy(
            () -> run("", "eval", "--pack", "banking77", "--labeled", "/nonexistent.tsv"))
        .hasMessageContaining("no such file");
  }
}
