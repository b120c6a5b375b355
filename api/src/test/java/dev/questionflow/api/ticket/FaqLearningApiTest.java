package dev.questionflow.api.ticket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.api.question.QuestionClient;
import dev.questionflow.api.security.TrialTokenRequests;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Staff turn a ticket into FAQ knowledge through the reply API (embedded default: in-process
 * Temporal server, in-memory change log, trial mode, no model): the next identical question is
 * answered from the FAQ; an admin revert hands it over again; bad changes are refused with 400 and
 * send no reply.
 */
@Import(TrialTokenRequests.class) // trial mode: requests present the trial token
@SpringBootTest(
    properties = {"spring.temporal.test-server.enabled=true", "cs.faq.index-dir=../data/faq-index"})
@AutoConfigureMockMvc
class FaqLearningApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Nothing a bank's FAQ answers. */
  private static final String SPIDER = "How many legs does a garden spider have?";

  @Autowired MockMvc mvc;

  private final List<Long> made = new ArrayList<>();

  /** The context (and its change log) is shared with other test classes: leave it as it was. */
  @AfterEach
  void revertWhatThisTestLearned() throws Exception {
    for (int i = made.size() - 1; i >= 0; i--) {
      mvc.perform(post("/api/v1/admin/faq/changes/" + made.get(i) + "/revert"));
    }
  }

  private String ask(String text) throws Exception {
    String session = "learn-" + UUID.randomUUID();
    return new QuestionClient(mvc)
        .ask(
            JSON.writeValueAsString(
                java.util.Map.of(
                    "sessionId", session, "userId", "u1", "clientMsgId", "m1", "text", text)))
        .get("workflowId")
        .asText();
  }

  private JsonNode await(String workflowId, String stage) {
    return new QuestionClient(mvc).awaitStage(workflowId, stage);
  }

  private String ticketFor(String text) throws Exception {
    return await(ask(text), "TICKETED").at("/answer/ticketId").asText();
  }

  private JsonNode reply(String ticketId, String body, int expected) throws Exception {
    String response =
        mvc.perform(
                post("/api/v1/tickets/" + ticketId + "/reply")
                    .contentType(MediaType.APPLICATION_JSON)
                    .content(body))
            .andExpect(status().is(expected))
            .andReturn()
            .getResponse()
            .getContentAsString();
    return JSON.readTree(response);
  }

  @Test
  void aPhrasingLearnedFromATicketAnswersTheNextQuestionUntilAnAdminRevertsIt() throws Exception {
    String ticketId = ticketFor(SPIDER);
    JsonNode replied =
        reply(ticketId, "{\"text\":\"Eight.\",\"learn\":{\"asPhrasingOf\":\"card_arrival\"}}", 202);
    JsonNode learned = replied.path("learned");
    made.add(learned.path("version").asLong());
    assertThat(replied.path("workflowId").asText()).isNotBlank();
    assertThat(learned.path("kind").asText()).isEqualTo("ADD_PHRASING");
    assertThat(learned.path("entryId").asText()).isEqualTo("card_arrival");
    assertThat(learned.path("text").asText()).isEqualTo(SPIDER);
    assertThat(learned.path("ticketId").asText()).isEqualTo(ticketId);
    assertThat(learned.path("agent").asText()).isEqualTo("local");

    JsonNode next = await(ask(SPIDER), "ANSWERED");
    assertThat(next.at("/answer/level").asText()).isEqualTo("FAQ");
    assertThat(next.at("/answer/faqId").asText()).isEqualTo("card_arrival");

    long version = learned.path("version").asLong();
    mvc.perform(get("/api/v1/admin/faq/changes"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$[0].version").value(version))
        .andExpect(jsonPath("$[0].agent").value("local"))
        .andExpect(jsonPath("$[0].revertedBy").doesNotExist());
    mvc.perform(post("/api/v1/admin/faq/changes/" + version + "/revert"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.revertedBy").value("local"));
    made.remove(version);
    mvc.perform(post("/api/v1/admin/faq/changes/" + version + "/revert"))
        .andExpect(status().isConflict())
        .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON));
    mvc.perform(post("/api/v1/admin/faq/changes/999999/revert"))
        .andExpect(status().isNotFound())
        .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON));

    assertThat(await(ask(SPIDER), "TICKETED").at("/answer/level").asText()).isEqualTo("TICKET");
  }

  @Test
  void aNewEntryAnswersWithTheStaffReply() throws Exception {
    String question = "Do you lend umbrellas at the branch when it rains?";
    String ticketId = ticketFor(question);
    JsonNode replied =
        reply(
            ticketId,
            "{\"text\":\"Yes, every branch lends umbrellas for free.\","
                + "\"learn\":{\"newEntry\":{\"id\":\"branch_umbrellas\","
                + "\"question\":\"Can I borrow an umbrella at a branch?\"}}}",
            202);
    made.add(replied.at("/learned/version").asLong());
    assertThat(replied.at("/learned/kind").asText()).isEqualTo("ADD_ENTRY");
    assertThat(replied.at("/learned/answer").asText())
        .isEqualTo("Yes, every branch lends umbrellas for free.");

    JsonNode next = await(ask(question), "ANSWERED");
    assertThat(next.at("/answer/level").asText()).isEqualTo("FAQ");
    assertThat(next.at("/answer/faqId").asText()).isEqualTo("branch_umbrellas");
    assertThat(next.at("/answer/text").asText())
        .isEqualTo("Yes, every branch lends umbrellas for free.");

    // the id is taken now
    String other = ticketFor("Is there a cash machine in the Leeds branch lobby?");
    JsonNode refused =
        reply(
            other,
            "{\"text\":\"Yes.\",\"learn\":{\"newEntry\":{\"id\":\"branch_umbrellas\"}}}",
            400);
    assertThat(refused.path("detail").asText()).contains("already exists");
  }

  private String changes() throws Exception {
    return mvc.perform(get("/api/v1/admin/faq/changes"))
        .andReturn()
        .getResponse()
        .getContentAsString();
  }

  /** Neither the pack change nor the reply happened: the log as before, the ticket still open. */
  private void assertNothingHappened(String changesBefore, String ticketId) throws Exception {
    assertThat(changes()).isEqualTo(changesBefore);
    mvc.perform(get("/api/v1/tickets/" + ticketId))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.status").value("OPEN"));
  }

  @Test
  void badChangesGetA400AndNeitherTheReplyNorTheChangeHappens() throws Exception {
    String ticketId = ticketFor("Which colour is the moon on Tuesdays?");
    List<String> bad =
        List.of(
            "{\"text\":\"x\",\"learn\":{\"asPhrasingOf\":\"no_such_entry\"}}",
            "{\"text\":\"x\",\"learn\":{\"asPhrasingOf\":\"card_arrival\",\"phrasing\":\"  \"}}",
            "{\"text\":\"x\",\"learn\":{}}",
            "{\"text\":\"x\",\"learn\":{\"asPhrasingOf\":\"card_arrival\","
                + "\"newEntry\":{\"id\":\"moon_colour\"}}}",
            "{\"text\":\"x\",\"learn\":{\"newEntry\":{\"id\":\"Moon Colour!\"}}}",
            "{\"text\":\"x\",\"learn\":{\"newEntry\":{\"id\":\"card_arrival\"}}}",
            "{\"text\":\"x\",\"learn\":{\"asPhrasingOf\":\"card_arrival\",\"phrasing\":\""
                + "a".repeat(1001)
                + "\"}}");
    String before = changes();
    for (String body : bad) {
      String problem =
          mvc.perform(
                  post("/api/v1/tickets/" + ticketId + "/reply")
                      .contentType(MediaType.APPLICATION_JSON)
                      .content(body))
              .andExpect(status().isBadRequest())
              .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
              .andReturn()
              .getResponse()
              .getContentAsString();
      assertThat(JSON.readTree(problem).path("detail").asText()).as(body).isNotBlank();
    }
    assertNothingHappened(before, ticketId);
  }

  /**
   * A learned entry answers every customer whose question matches it: a reply that links outside
   * the allow-list (none here) may answer its own ticket's customer, but is refused as FAQ
   * knowledge (422), and nothing happens, neither the change nor the reply.
   */
  @Test
  void aReplyThatLinksOutsideTheAllowListIsNotTaught() throws Exception {
    String ticketId = ticketFor("Where can I see the branch's new opening hours for winter?");
    String before = changes();
    for (String answer :
        List.of(
            "See https://opening-hours.example/winter for the list.",
            "Log in at winter-hours.com to see them.")) {
      String problem =
          mvc.perform(
                  post("/api/v1/tickets/" + ticketId + "/reply")
                      .contentType(MediaType.APPLICATION_JSON)
                      .content(
                          JSON.writeValueAsString(
                              java.util.Map.of(
                                  "text",
                                  answer,
                                  "learn",
                                  java.util.Map.of(
                                      "newEntry", java.util.Map.of("id", "winter_hours"))))))
              .andExpect(status().isUnprocessableContent())
              .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
              .andReturn()
              .getResponse()
              .getContentAsString();
      assertThat(JSON.readTree(problem).path("detail").asText()).as(answer).contains("links to");
    }
    assertNothingHappened(before, ticketId);
  }
}
