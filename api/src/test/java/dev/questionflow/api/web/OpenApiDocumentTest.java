package dev.questionflow.api.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.MockMvc;

/**
 * docs/openapi.json is the contract chat back ends build on (and the e2e tests generate their
 * client from): it must be the document the code serves. When they differ this fails and writes the
 * served document to target/openapi.json; {@code -Dopenapi.update=true} rewrites docs/openapi.json
 * instead (docs/api.md, "The contract").
 */
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "springdoc.api-docs.enabled=true"
    })
@AutoConfigureMockMvc
@DirtiesContext // no other test shares this context: close its in-process Temporal server after
class OpenApiDocumentTest {

  static final Path COMMITTED = Path.of("..", "docs", "openapi.json");
  static final Path SERVED_COPY = Path.of("target", "openapi.json");

  private static final String PROBLEM_JSON = "application/problem+json";

  @Autowired MockMvc mvc;

  private String served;
  private JsonNode document;

  @BeforeEach
  void fetchTheServedDocument() throws Exception {
    String raw =
        mvc.perform(get("/v3/api-docs"))
            .andExpect(status().isOk())
            .andReturn()
            .getResponse()
            .getContentAsString(StandardCharsets.UTF_8);
    served = normalised(raw);
    document = new ObjectMapper().readTree(served);
  }

  @Test
  void theCommittedDocumentIsTheOneTheCodeServes() throws Exception {
    if (Boolean.getBoolean("openapi.update")) {
      Files.writeString(COMMITTED, served, StandardCharsets.UTF_8);
    }
    String committed =
        Files.exists(COMMITTED) ? Files.readString(COMMITTED, StandardCharsets.UTF_8) : "";
    if (!committed.equals(served)) {
      Files.createDirectories(SERVED_COPY.getParent());
      Files.writeString(SERVED_COPY, served, StandardCharsets.UTF_8);
    }
    // not isEqualTo: the whole document twice would bury the message
    assertThat(committed.equals(served))
        .as(
            "docs/openapi.json is not what the code serves (%s); the served document is in"
                + " api/%s. If the change is meant, update it: mvn -B -pl api -am test"
                + " -Dtest=OpenApiDocumentTest -Dsurefire.failIfNoSpecifiedTests=false"
                + " -Dopenapi.update=true",
            firstDifference(committed, served), SERVED_COPY)
        .isTrue();
  }

  @Test
  void callersPresentABearerKey() {
    JsonNode bearer = document.at("/components/securitySchemes/bearer");
    assertThat(bearer.path("type").asText()).isEqualTo("http");
    assertThat(bearer.path("scheme").asText()).isEqualTo("bearer");
    assertThat(document.at("/security/0").has("bearer")).as("every operation by default").isTrue();
    // the chat page's anonymous session is how a browser gets credentials: it needs none
    assertThat(document.at("/paths/~1api~1v1~1web-session/post/security").isEmpty()).isTrue();
  }

  @Test
  void askingAnswers202WithTheWorkflowIdOrAProblem() {
    JsonNode ask = document.at("/paths/~1api~1v1~1questions/post");
    assertThat(schemaProperties(ask.at("/requestBody/content/application~1json/schema")))
        .containsExactlyInAnyOrder(
            "sessionId",
            "userId",
            "clientMsgId",
            "text",
            "tier",
            "channel",
            "patienceSeconds",
            "upgrade",
            "callbackUrl");
    JsonNode accepted = ask.at("/responses/202");
    assertThat(accepted.at("/headers/Location").isMissingNode()).isFalse();
    assertThat(schemaProperties(accepted.at("/content/application~1json/schema")))
        .containsExactlyInAnyOrder("workflowId", "statusUrl", "duplicate", "queued");
    assertThat(ask.at("/responses/200").isMissingNode()).as("202, never 200").isTrue();
    for (String code : List.of("400", "401", "403", "413", "415", "429")) {
      assertThat(problemSchema(ask, code)).as(code).isEqualTo("#/components/schemas/Problem");
    }
    assertThat(ask.at("/responses/429/headers/Retry-After").isMissingNode()).isFalse();
  }

  @Test
  void theStatusNamesTheStageAndTheAnswerOrAProblem() {
    JsonNode status = document.at("/paths/~1api~1v1~1questions~1{workflowId}/get");
    JsonNode schema = resolve(status.at("/responses/200/content/application~1json/schema"));
    assertThat(schemaProperties(schema))
        .contains("workflowId", "stage", "queuePosition", "etaSeconds", "answer", "upgrading");
    assertThat(resolve(schema.at("/properties/stage")).path("enum").toString())
        .contains("ANSWERED", "TICKETED", "WAITING_IN_QUEUE");
    assertThat(schemaProperties(resolve(schema.at("/properties/answer"))))
        .contains("text", "level", "notice", "revision");
    for (String code : List.of("401", "403", "404", "429")) {
      assertThat(problemSchema(status, code)).as(code).isEqualTo("#/components/schemas/Problem");
    }
    assertThat(
            document
                .at("/paths/~1api~1v1~1questions~1{workflowId}~1events/get/responses/200")
                .path("content")
                .has("text/event-stream"))
        .isTrue();
  }

  private String problemSchema(JsonNode operation, String code) {
    return operation
        .at("/responses/" + code + "/content")
        .path(PROBLEM_JSON)
        .at("/schema/$ref")
        .asText();
  }

  private List<String> schemaProperties(JsonNode schema) {
    List<String> names = new ArrayList<>();
    resolve(schema).path("properties").fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** The schema a {@code $ref} names, or the schema itself. */
  private JsonNode resolve(JsonNode schema) {
    String ref = schema.path("$ref").asText("");
    return ref.isEmpty() ? schema : document.at(ref.substring(1));
  }

  /**
   * Stable text for a stable document: keys sorted (springdoc's order follows reflection), two
   * spaces, one value a line, "\n" line ends and a final newline.
   */
  static String normalised(String json) throws Exception {
    ObjectMapper mapper =
        new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
    Object tree = mapper.readValue(json, Object.class);
    DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
    DefaultPrettyPrinter printer =
        new DefaultPrettyPrinter()
            .withSeparators(
                Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER));
    printer.indentObjectsWith(indenter);
    printer.indentArraysWith(indenter);
    return mapper.writer(printer).writeValueAsString(tree) + "\n";
  }

  /** Where two texts part, by line, for the failure message. */
  private static String firstDifference(String committed, String served) {
    if (committed.isEmpty()) {
      return COMMITTED + " is missing or empty";
    }
    String[] a = committed.split("\n", -1);
    String[] b = served.split("\n", -1);
    for (int i = 0; i < Math.min(a.length, b.length); i++) {
      if (!a[i].equals(b[i])) {
        return "line "
            + (i + 1)
            + ": committed «"
            + a[i].strip()
            + "», served «"
            + b[i].strip()
            + "»";
      }
    }
    return "the committed file has " + a.length + " lines, the served one " + b.length;
  }
}
