package dev.questionflow.activities.outcome;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.workflows.outcome.QuestionRecord;
import java.io.UncheckedIOException;

/** The record's JSON, one schema for the stream, the export and consumers. */
final class OutcomeJson {

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private OutcomeJson() {}

  static String write(QuestionRecord record) {
    try {
      return JSON.writeValueAsString(record);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static QuestionRecord read(String json) {
    try {
      return JSON.readValue(json, QuestionRecord.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
