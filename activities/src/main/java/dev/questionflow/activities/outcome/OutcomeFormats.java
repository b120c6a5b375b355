package dev.questionflow.activities.outcome;

import dev.questionflow.workflows.outcome.QuestionRecord;
import java.io.IOException;
import java.io.Writer;
import java.util.List;

/** The export's formats: JSONL (one record's JSON a line) or CSV (a header, then a row each). */
public final class OutcomeFormats {

  public static final List<String> CSV_COLUMNS =
      List.of(
          "workflowId",
          "caller",
          "tier",
          "intent",
          "stage",
          "level",
          "faqId",
          "reasons",
          "firstAnswerMillis",
          "model",
          "promptTokens",
          "completionTokens",
          "cost",
          "finishedAtEpochMillis");

  private OutcomeFormats() {}

  public static void write(String format, List<QuestionRecord> records, Writer out)
      throws IOException {
    switch (format) {
      case "jsonl" -> {
        for (QuestionRecord record : records) {
          out.write(OutcomeJson.write(record));
          out.write('\n');
        }
      }
      case "csv" -> {
        out.write(String.join(",", CSV_COLUMNS));
        out.write('\n');
        for (QuestionRecord r : records) {
          out.write(
              String.join(
                  ",",
                  cell(r.workflowId()),
                  cell(r.caller()),
                  cell(r.tier()),
                  cell(r.intent()),
                  cell(r.stage()),
                  cell(r.level()),
                  cell(r.faqId()),
                  cell(String.join("; ", r.reasons())),
                  cell(r.firstAnswerMillis()),
                  cell(r.model()),
                  cell(r.promptTokens()),
                  cell(r.completionTokens()),
                  cell(r.cost()),
                  cell(r.finishedAtEpochMillis())));
          out.write('\n');
        }
      }
      default -> throw new IllegalArgumentException("format must be csv or jsonl: " + format);
    }
  }

  /** RFC 4180: quoted when it holds a comma, quote or line break. */
  static String cell(Object value) {
    if (value == null) {
      return "";
    }
    String text = value.toString();
    if (text.contains(",") || text.contains("\"") || text.contains("\n") || text.contains("\r")) {
      return "\"" + text.replace("\"", "\"\"") + "\"";
    }
    return text;
  }
}
