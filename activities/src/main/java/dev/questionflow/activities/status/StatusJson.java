package dev.questionflow.activities.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.workflows.question.QuestionStatus;
import io.temporal.common.converter.JacksonJsonPayloadConverter;

/** A status as JSON, the way Temporal's data converter writes it (the same records round-trip). */
final class StatusJson {

  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  private StatusJson() {}

  static String write(QuestionStatus status) {
    try {
      return JSON.writeValueAsString(status);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a status that cannot be written as JSON", e);
    }
  }

  static QuestionStatus read(String json) {
    try {
      return JSON.readValue(json, QuestionStatus.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a stored status that is not a status", e);
    }
  }
}
