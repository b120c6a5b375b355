package dev.questionflow.activities.outcome;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.workflows.outcome.QuestionRecord;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutcomeFormatsTest {

  private final QuestionRecord record =
      new QuestionRecord(
          "q-1",
          "web",
          "VIP",
          "cards",
          "ANSWERED",
          "SEMANTIC",
          "faq-7",
          List.of("primary model: ModelTimeout", "backup model: not configured, \"busy\""),
          900L,
          "fake-model",
          1200,
          80,
          0.00066,
          1_700_000_000_000L);

  @Test
  void csvHasAHeaderAndQuotesCellsWithCommasOrQuotes() throws Exception {
    StringWriter out = new StringWriter();
    OutcomeFormats.write("csv", List.of(record), out);
    assertThat(out.toString().split("\n"))
        .containsExactly(
            String.join(",", OutcomeFormats.CSV_COLUMNS),
            "q-1,web,VIP,cards,ANSWERED,SEMANTIC,faq-7,"
                + "\"primary model: ModelTimeout; backup model: not configured, \"\"busy\"\"\","
                + "900,fake-model,1200,80,6.6E-4,1700000000000");
  }

  @Test
  void jsonlIsOneRecordALineThatReadsBack() throws Exception {
    StringWriter out = new StringWriter();
    OutcomeFormats.write("jsonl", List.of(record, record), out);
    String[] lines = out.toString().split("\n");
    assertThat(lines).hasSize(2);
    assertThat(new ObjectMapper().readValue(lines[0], QuestionRecord.class)).isEqualTo(record);
  }

  @Test
  void aCostReadsAsThePricesGaveIt() throws Exception {
    QuestionRecord summed =
        new QuestionRecord(
            "q-2",
            "web",
            "STANDARD",
            "cards",
            "ANSWERED",
            "RAG",
            "faq-7",
            List.of(),
            900L,
            "fake-model",
            258,
            14,
            258 * 0.15e-6 + 14 * 0.6e-6,
            1_700_000_000_000L);
    StringWriter out = new StringWriter();
    OutcomeFormats.write("csv", List.of(summed), out);
    assertThat(out.toString()).contains(",258,14,4.71E-5,");
  }

  @Test
  void sinceTakesAnInstantOrADurationBack() {
    Clock clock = Clock.fixed(Instant.parse("2026-01-02T00:00:00Z"), ZoneOffset.UTC);
    assertThat(OutcomeExport.sinceMillis("2026-01-01T00:00:00Z", clock))
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
    assertThat(OutcomeExport.sinceMillis("24h", clock))
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
    assertThat(OutcomeExport.sinceMillis("30m", clock))
        .isEqualTo(Instant.parse("2026-01-01T23:30:00Z").toEpochMilli());
    assertThat(OutcomeExport.sinceMillis("PT1H", clock))
        .isEqualTo(Instant.parse("2026-01-01T23:00:00Z").toEpochMilli());
  }
}
