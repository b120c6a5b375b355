package dev.questionflow.api.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.api.question.QuestionClient;
import dev.questionflow.api.security.TrialTokenRequests;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The app's log lines are JSON objects, and every line of a question's life (the API thread that
 * accepted it, the workflow, its activities) carries the caller's request ID and the workflow ID.
 */
@Import(TrialTokenRequests.class) // trial mode: requests present the trial token
@SpringBootTest(
    properties = {"spring.temporal.test-server.enabled=true", "cs.faq.index-dir=../data/faq-index"})
@AutoConfigureMockMvc
@ExtendWith(OutputCaptureExtension.class)
class JsonLogLinesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Autowired MockMvc mvc;

  @Test
  void everyLineOfAQuestionCarriesItsRequestIdAndWorkflowId(CapturedOutput output)
      throws Exception {
    String body =
        mvc.perform(
                post("/api/v1/questions")
                    .contentType(MediaType.APPLICATION_JSON)
                    .header("X-Request-Id", "req-logs-1")
                    .content(
                        "{\"sessionId\":\"logs-s1\",\"userId\":\"u1\",\"clientMsgId\":\"m1\","
                            + "\"text\":\"What is the airspeed velocity of an unladen swallow?\"}"))
            .andExpect(status().isAccepted())
            .andExpect(header().string("X-Request-Id", "req-logs-1"))
            .andReturn()
            .getResponse()
            .getContentAsString();
    String workflowId = JSON.readTree(body).get("workflowId").asText();
    new QuestionClient(mvc).awaitStage(workflowId, "TICKETED");

    List<JsonNode> lines =
        output
            .getOut()
            .lines()
            .filter(line -> line.startsWith("{"))
            .map(JsonLogLinesTest::parse)
            .toList();
    List<JsonNode> ofThisQuestion =
        lines.stream().filter(l -> workflowId.equals(l.path("WorkflowId").asText())).toList();

    assertThat(lines)
        .as("JSON lines on the console")
        .isNotEmpty()
        .allSatisfy(
            l ->
                assertThat(List.of(l.path("@timestamp"), l.at("/log/level"), l.path("message")))
                    .noneMatch(JsonNode::isMissingNode));
    assertThat(ofThisQuestion)
        .extracting(l -> l.at("/log/logger").asText())
        .as("lines from the API and from the worker side")
        .anyMatch(logger -> logger.startsWith("dev.questionflow.api"))
        .anyMatch(logger -> !logger.startsWith("dev.questionflow.api"));
    assertThat(ofThisQuestion)
        .allSatisfy(l -> assertThat(l.path("requestId").asText()).isEqualTo("req-logs-1"));
  }

  @Test
  void aRequestWithoutAUsableRequestIdGetsAGeneratedOne() throws Exception {
    String generated =
        mvc.perform(
                post("/api/v1/questions")
                    .contentType(MediaType.APPLICATION_JSON)
                    .header("X-Request-Id", "not a token; DROP TABLE")
                    .content(
                        "{\"sessionId\":\"logs-s2\",\"userId\":\"u1\",\"clientMsgId\":\"m1\",\"text\":\"hi\"}"))
            .andExpect(status().isAccepted())
            .andReturn()
            .getResponse()
            .getHeader("X-Request-Id");

    assertThat(generated).matches("[0-9a-f-]{36}");
  }

  private static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (Exception e) {
      throw new AssertionError("not a JSON log line: " + line, e);
    }
  }
}
