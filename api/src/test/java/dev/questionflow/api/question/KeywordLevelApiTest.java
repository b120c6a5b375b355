package dev.questionflow.api.question;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.questionflow.api.security.TrialTokenRequests;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.MockMvc;

/** With the embedding model disabled, the keyword matcher (L4) still answers, at level KEYWORD. */
@Import(TrialTokenRequests.class) // trial mode: requests present the trial token
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.faq.semantic-enabled=false"
    })
@AutoConfigureMockMvc
class KeywordLevelApiTest {

  @Autowired MockMvc mvc;

  @Test
  void aCardQuestionIsAnsweredAtKeywordLevelWithoutTheEmbeddingModel() throws Exception {
    QuestionClient client = new QuestionClient(mvc);
    String workflowId =
        client
            .ask(
                "{\"sessionId\":\"kw-s1\",\"userId\":\"u1\",\"clientMsgId\":\"m1\","
                    + "\"text\":\"I still have not received my new card\"}")
            .get("workflowId")
            .asText();

    JsonNode status = client.awaitStage(workflowId, "ANSWERED");

    assertThat(status.path("stage").asText()).isEqualTo("ANSWERED");
    assertThat(status.at("/answer/level").asText()).isEqualTo("KEYWORD");
    assertThat(status.at("/answer/faqId").asText()).isEqualTo("card_arrival");
    assertThat(status.at("/answer/notice").asText()).contains("Simplified mode");
    assertThat(status.path("intent").asText()).isEqualTo("card_arrival");
  }
}
