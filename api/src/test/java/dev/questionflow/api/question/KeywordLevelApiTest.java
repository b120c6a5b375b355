package dev.questionflow.api.question;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/** With the embedding model disabled, the keyword matcher (L4) still answers, at level KEYWORD. */
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.faq.semantic-enabled=false"
    })
@AutoConfigureMockMvc
class KeywordLevelApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Autowired MockMvc mvc;

  @Test
  void aCardQuestionIsAnsweredAtKeywordLevelWithoutTheEmbeddingModel() throws Exception {
    String accepted =
        mvc.perform(
                post("/api/v1/questions")
                    .contentType(MediaType.APPLICATION_JSON)
                    .content("{\"sessionId\":\"kw-s1\",\"userId\":\"u1\",\"clientMsgId\":\"m1\","
                        + "\"text\":\"I still have not received my new card\"}"))
            .andExpect(status().isAccepted())
            .andReturn().getResponse().getContentAsString();
    String workflowId = JSON.readTree(accepted).get("workflowId").asText();

    JsonNode status = null;
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (Instant.now().isBefore(deadline)) {
      status = JSON.readTree(mvc.perform(get("/api/v1/questions/" + workflowId))
          .andReturn().getResponse().getContentAsString());
      if ("ANSWERED".equals(status.path("stage").asText())) {
        break;
      }
      Thread.sleep(100); // this client's polling interval
    }

    assertThat(status.path("stage").asText()).isEqualTo("ANSWERED");
    assertThat(status.at("/answer/level").asText()).isEqualTo("KEYWORD");
    assertThat(status.at("/answer/faqId").asText()).isEqualTo("card_arrival");
    assertThat(status.at("/answer/notice").asText()).contains("Simplified mode");
    assertThat(status.path("intent").asText()).isEqualTo("card_arrival");
  }
}
