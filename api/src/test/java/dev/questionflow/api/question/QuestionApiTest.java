package dev.questionflow.api.question;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.fasterxml.jackson.databind.JsonNode;
import dev.questionflow.api.security.TrialTokenRequests;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The HTTP API on the embedded default (the SDK's in-process Temporal server, in-memory inbox, no
 * model): the whole question flow and every kind of bad input.
 */
@Import(TrialTokenRequests.class) // trial mode: requests present the trial token
@SpringBootTest(
    properties = {"spring.temporal.test-server.enabled=true", "cs.faq.index-dir=../data/faq-index"})
@AutoConfigureMockMvc
class QuestionApiTest {

  @Autowired MockMvc mvc;

  private JsonNode ask(String body) throws Exception {
    return new QuestionClient(mvc).ask(body);
  }

  private JsonNode awaitStage(String workflowId, String stage) {
    return new QuestionClient(mvc).awaitStage(workflowId, stage);
  }

  @Test
  void aCardQuestionIsAnsweredFromTheFaqWhenNoModelIsConfigured() throws Exception {
    JsonNode accepted =
        ask(
            "{\"sessionId\":\"api-s1\",\"userId\":\"u1\",\"clientMsgId\":\"m1\","
                + "\"text\":\"I still have not received my new card\"}");
    String workflowId = accepted.get("workflowId").asText();
    assertThat(accepted.get("duplicate").asBoolean()).isFalse();
    assertThat(accepted.get("statusUrl").asText()).isEqualTo("/api/v1/questions/" + workflowId);

    JsonNode answered = awaitStage(workflowId, "ANSWERED");

    assertThat(answered.at("/answer/level").asText()).isEqualTo("FAQ");
    assertThat(answered.at("/answer/revision").asInt()).isEqualTo(1);
    assertThat(answered.get("upgrading").asBoolean()).isFalse();
    assertThat(answered.get("deadline").isNull()).as("not in a model's line").isTrue();
    assertThat(answered.at("/answer/faqId").asText()).isEqualTo("card_arrival");
    assertThat(answered.at("/answer/notice").asText()).contains("Simplified mode");
  }

  @Test
  void theSemanticMatchCacheServesAQuestionsSecondMatchAndShowsItsHitRatio() throws Exception {
    String workflowId =
        ask("{\"sessionId\":\"api-cache\",\"userId\":\"u1\",\"clientMsgId\":\"m1\","
                + "\"text\":\"How long does a card take to arrive?\"}")
            .get("workflowId")
            .asText();
    awaitStage(workflowId, "ANSWERED");

    String prometheus =
        mvc.perform(get("/actuator/prometheus"))
            .andExpect(status().isOk())
            .andReturn()
            .getResponse()
            .getContentAsString();
    // intent detection matches the question, retrieval ranks it and takes the best: one match
    assertThat(metric(prometheus, "cs_faq_match_cache_requests_total{result=\"hit\"}"))
        .isPositive();
    assertThat(metric(prometheus, "cs_faq_match_cache_hit_ratio")).isBetween(0.01, 1.0);
    assertThat(metric(prometheus, "cs_faq_match_cache_size")).isPositive();
  }

  private static double metric(String prometheus, String series) {
    return prometheus
        .lines()
        .filter(line -> line.startsWith(series + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError(series + " not in /actuator/prometheus"));
  }

  @Test
  void aCallerMayAskForLessPatienceAndAnUpgrade() throws Exception {
    JsonNode accepted =
        ask(
            "{\"sessionId\":\"api-patience\",\"userId\":\"u1\",\"clientMsgId\":\"m1\","
                + "\"text\":\"How do I top up?\",\"patienceSeconds\":3,\"upgrade\":true}");

    JsonNode answered = awaitStage(accepted.get("workflowId").asText(), "ANSWERED");

    // no model here: the FAQ answers, and with no model line there is nothing to upgrade
    assertThat(answered.at("/answer/level").asText()).isEqualTo("FAQ");
    assertThat(answered.get("upgrading").asBoolean()).isFalse();
  }

  @Test
  void aRepeatedSubmitReturnsTheSameWorkflowAsDuplicate() throws Exception {
    String body =
        "{\"sessionId\":\"api-s2\",\"userId\":\"u1\",\"clientMsgId\":\"m1\",\"text\":\"How do I top up?\"}";
    JsonNode first = ask(body);
    JsonNode second = ask(body);

    assertThat(second.get("workflowId").asText()).isEqualTo(first.get("workflowId").asText());
    assertThat(first.get("duplicate").asBoolean()).isFalse();
    assertThat(second.get("duplicate").asBoolean()).isTrue();
  }

  @Test
  void anUnanswerableQuestionIsTicketedAndAStaffReplyAnswersIt() throws Exception {
    String workflowId =
        ask("{\"sessionId\":\"api-s3\",\"userId\":\"u1\",\"clientMsgId\":\"m1\","
                + "\"text\":\"What is the airspeed velocity of an unladen swallow?\"}")
            .get("workflowId")
            .asText();
    JsonNode ticketed = awaitStage(workflowId, "TICKETED");
    String ticketId = ticketed.at("/answer/ticketId").asText();
    assertThat(ticketed.at("/answer/level").asText()).isEqualTo("TICKET");

    mvc.perform(get("/api/v1/tickets"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$[?(@.ticketId == '" + ticketId + "')].workflowId").value(workflowId));
    mvc.perform(get("/api/v1/tickets/" + ticketId))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.status").value("OPEN"))
        .andExpect(jsonPath("$.workflowId").value(workflowId))
        .andExpect(
            jsonPath("$.question").value("What is the airspeed velocity of an unladen swallow?"))
        .andExpect(jsonPath("$.candidates").isArray())
        .andExpect(jsonPath("$.recentTurns").isArray());
    mvc.perform(
            post("/api/v1/tickets/" + ticketId + "/reply")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"text\":\"About 11 metres per second.\"}"))
        .andExpect(status().isAccepted());

    JsonNode answered = awaitStage(workflowId, "ANSWERED");
    assertThat(answered.at("/answer/level").asText()).isEqualTo("HUMAN");
    assertThat(answered.at("/answer/text").asText()).isEqualTo("About 11 metres per second.");
    mvc.perform(
            post("/api/v1/tickets/" + ticketId + "/reply")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"text\":\"again\"}"))
        .andExpect(status().isConflict());
  }

  static Stream<Arguments> badBodies() {
    String longText = "a".repeat(2001);
    return Stream.of(
        Arguments.of(
            "empty text",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"\"}",
            "text"),
        Arguments.of(
            "blank text",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"   \"}",
            "text"),
        Arguments.of(
            "over-long text",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\""
                + longText
                + "\"}",
            "text"),
        Arguments.of(
            "missing clientMsgId",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"text\":\"hi\"}",
            "clientMsgId"),
        Arguments.of(
            "missing sessionId",
            "{\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\"}",
            "sessionId"),
        Arguments.of(
            "missing userId",
            "{\"sessionId\":\"SID\",\"clientMsgId\":\"m\",\"text\":\"hi\"}",
            "userId"),
        Arguments.of(
            "malformed JSON", "{\"sessionId\":\"SID\",\"userId\":\"u\",", "malformed JSON"),
        Arguments.of("empty body", "", "body"),
        Arguments.of(
            "number as text",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":123}",
            "text"),
        Arguments.of(
            "array as ID",
            "{\"sessionId\":[\"SID\"],\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\"}",
            "sessionId"),
        Arguments.of(
            "unknown tier",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\",\"tier\":\"GOLD\"}",
            "tier"),
        Arguments.of(
            "patience of zero",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\",\"patienceSeconds\":0}",
            "patienceSeconds"),
        Arguments.of(
            "patience above the configured 10 s",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\",\"patienceSeconds\":11}",
            "patienceSeconds: must be at most 10"),
        Arguments.of(
            "patience as text",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\",\"patienceSeconds\":\"soon\"}",
            "patienceSeconds"),
        Arguments.of(
            "upgrade as a number",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\",\"upgrade\":2}",
            "upgrade"),
        Arguments.of(
            "callback URL of a caller with no registered callback host",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\",\"callbackUrl\":\"https://example.com/hook\"}",
            "callbackUrl: caller local has no registered callback host"),
        Arguments.of(
            "callback URL over 2048 characters",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\",\"callbackUrl\":\"https://example.com/"
                + "a".repeat(2048)
                + "\"}",
            "callbackUrl"),
        Arguments.of(
            "callback URL as a number",
            "{\"sessionId\":\"SID\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\",\"callbackUrl\":42}",
            "callbackUrl"),
        Arguments.of(
            "odd characters in ID",
            "{\"sessionId\":\"bad/../x\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\"}",
            "sessionId"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badBodies")
  void badInputGetsA400ProblemNamingItAndStartsNothing(String name, String body, String named)
      throws Exception {
    String session = "bad-" + Integer.toHexString(name.hashCode());
    mvc.perform(
            post("/api/v1/questions")
                .contentType(MediaType.APPLICATION_JSON)
                .content(body.replace("SID", session)))
        .andExpect(status().isBadRequest())
        .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
        .andExpect(jsonPath("$.status").value(400))
        .andExpect(jsonPath("$.detail").value(org.hamcrest.Matchers.containsString(named)))
        .andExpect(jsonPath("$.trace").doesNotExist());

    // nothing was started: the same IDs submitted properly are not a duplicate
    JsonNode accepted =
        ask(
            "{\"sessionId\":\""
                + session
                + "\",\"userId\":\"u\",\"clientMsgId\":\"m\",\"text\":\"hi\"}");
    assertThat(accepted.get("duplicate").asBoolean()).isFalse();
  }

  @Test
  void unknownQuestionIs404() throws Exception {
    mvc.perform(get("/api/v1/questions/q-00000000000000000000000000000000"))
        .andExpect(status().isNotFound())
        .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON));
    mvc.perform(get("/api/v1/questions/not-a-question")).andExpect(status().isNotFound());
    mvc.perform(get("/api/v1/questions/q-00000000000000000000000000000000/events"))
        .andExpect(status().isNotFound());
    mvc.perform(get("/api/v1/tickets/T-nope")).andExpect(status().isNotFound());
  }

  @Test
  void readinessIncludesTemporalAndRedisReachabilityAndLivenessDoesNot() throws Exception {
    mvc.perform(get("/actuator/health/readiness"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.components.temporal.status").value("UP"))
        .andExpect(jsonPath("$.components.redis.status").value("UP"))
        .andExpect(
            jsonPath("$.components.redis.details.mode")
                .value("in-memory stores (REDIS_URL is not set)"));
    mvc.perform(get("/actuator/health/liveness"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.components.temporal").doesNotExist());
  }
}
