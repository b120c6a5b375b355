package dev.questionflow.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Base64;

/**
 * Reads search attribute values out of `temporal workflow describe --output json` (JSON payloads in
 * base64).
 */
final class SearchAttributeValues {

  private static final ObjectMapper JSON = new ObjectMapper();

  private SearchAttributeValues() {}

  static JsonNode value(JsonNode describe, String name) throws Exception {
    JsonNode field = describe.at("/workflowExecutionInfo/searchAttributes/indexedFields/" + name);
    if (field.isMissingNode()) {
      return null;
    }
    return JSON.readTree(Base64.getDecoder().decode(field.path("data").asText()));
  }
}
