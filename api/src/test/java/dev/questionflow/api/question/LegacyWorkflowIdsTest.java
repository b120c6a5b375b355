package dev.questionflow.api.question;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.fasterxml.jackson.databind.JsonNode;
import dev.questionflow.api.security.Requester;
import dev.questionflow.api.security.TrialTokenRequests;
import dev.questionflow.workflows.question.Question.Tier;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Issue 28, item 6: owner tags of 64 bits, and the IDs of questions asked before (32-bit tags)
 * still work: read by their owner and staff only, and a resubmit finds them.
 */
@Import(TrialTokenRequests.class) // trial mode: requests present the trial token
@SpringBootTest(
    properties = {"spring.temporal.test-server.enabled=true", "cs.faq.index-dir=../data/faq-index"})
@AutoConfigureMockMvc
class LegacyWorkflowIdsTest {

  @Autowired MockMvc mvc;
  @Autowired WorkflowIds ids;
  @Autowired WorkflowClient client;

  /** What the first format made of the same question: the tag's first 8 hex, the same message. */
  private static String oldFormatOf(String id) {
    return id.substring(0, 10) + id.substring(id.length() - 24);
  }

  @Test
  void anOwnerTagHas64Bits() {
    String id = ids.forMessage(Requester.local(), "u1", "s1", "m1");
    assertThat(id).matches("q-[0-9a-f]{40}");
    assertThat(WorkflowIds.isQuestionId(id)).isTrue();
  }

  @Test
  void anOldIdIsReadByItsOwnerAndByStaffOnly() {
    Requester a = Requester.backend("backend-a", Tier.STANDARD);
    Requester b = Requester.backend("backend-b", Tier.STANDARD);
    String current = ids.forMessage(a, "u1", "s1", "m1");
    String old = oldFormatOf(current);

    assertThat(old).hasSize(34).isNotEqualTo(current);
    assertThat(ids.readableBy(old, a)).isTrue();
    assertThat(ids.readableBy(current, a)).isTrue();
    assertThat(ids.readableBy(old, b)).isFalse();
    assertThat(ids.readableBy(current, b)).isFalse();
    assertThat(ids.readableBy(old, Requester.staff("alice"))).isTrue();
    // a 64-bit tag whose first half is right is still somebody else's
    String forged = current.substring(0, 10) + "00000000" + current.substring(18);
    assertThat(ids.readableBy(forged, a)).isFalse();
  }

  @Test
  void aResubmitOfAQuestionAskedUnderItsOldIdFindsIt() throws Exception {
    String current = ids.forMessage(Requester.local(), "u-old", "s-old", "m-old");
    String old = oldFormatOf(current);
    assertThat(old).isNotEqualTo(current);
    // the question as the previous version started it (no worker polls this queue: it stays open)
    client
        .newUntypedWorkflowStub(
            "QuestionWorkflow",
            WorkflowOptions.newBuilder()
                .setWorkflowId(old)
                .setTaskQueue("legacy-ids-test-nobody")
                .build())
        .start();

    String body =
        "{\"sessionId\":\"s-old\",\"userId\":\"u-old\",\"clientMsgId\":\"m-old\",\"text\":\"How do I top up?\"}";
    QuestionClient questions = new QuestionClient(mvc);
    for (int attempt = 1; attempt <= 2; attempt++) { // the second within the duplicate window
      JsonNode resubmit = questions.ask(body);
      assertThat(resubmit.get("workflowId").asText()).as("attempt %d", attempt).isEqualTo(old);
      assertThat(resubmit.get("duplicate").asBoolean()).isTrue();
    }
    mvc.perform(get("/api/v1/questions/" + current)).andExpect(status().isNotFound());

    JsonNode fresh =
        questions.ask(
            "{\"sessionId\":\"s-old\",\"userId\":\"u-old\",\"clientMsgId\":\"m-new\",\"text\":\"How do I top up?\"}");
    assertThat(fresh.get("workflowId").asText()).matches("q-[0-9a-f]{40}");
    assertThat(fresh.get("duplicate").asBoolean()).isFalse();
  }
}
