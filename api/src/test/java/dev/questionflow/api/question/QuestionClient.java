package dev.questionflow.api.question;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.result.MockMvcResultMatchers;

/**
 * The chat caller's side of the API tests: submit a question, poll its status until a stage is
 * reached.
 */
public final class QuestionClient {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final MockMvc mvc;
  private final String authorization;

  /** A client without credentials of its own (in trial mode the test presents the trial token). */
  public QuestionClient(MockMvc mvc) {
    this(mvc, null);
  }

  /**
   * @param apiKey a caller's API key, sent as a bearer token
   */
  public QuestionClient(MockMvc mvc, String apiKey) {
    this.mvc = mvc;
    this.authorization = apiKey == null ? null : "Bearer " + apiKey;
  }

  private MockHttpServletRequestBuilder authorized(MockHttpServletRequestBuilder request) {
    return authorization == null ? request : request.header("Authorization", authorization);
  }

  /** POSTs the body and returns the 202 answer. */
  public JsonNode ask(String body) throws Exception {
    String response =
        mvc.perform(
                authorized(
                    post("/api/v1/questions")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content(body)))
            .andExpect(MockMvcResultMatchers.status().isAccepted())
            .andReturn()
            .getResponse()
            .getContentAsString();
    return JSON.readTree(response);
  }

  JsonNode status(String workflowId) throws Exception {
    String body =
        mvc.perform(authorized(get("/api/v1/questions/" + workflowId)))
            .andExpect(MockMvcResultMatchers.status().isOk())
            .andReturn()
            .getResponse()
            .getContentAsString();
    return JSON.readTree(body);
  }

  /** Polls the status until the stage is reached; fails with the last status seen after 30 s. */
  public JsonNode awaitStage(String workflowId, String stage) {
    AtomicReference<JsonNode> last = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              last.set(status(workflowId));
              assertThat(last.get().path("stage").asText())
                  .as("status of %s: %s", workflowId, last.get())
                  .isEqualTo(stage);
            });
    return last.get();
  }
}
