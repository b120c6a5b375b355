package dev.questionflow.api.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.questionflow.api.question.QuestionClient;
import dev.questionflow.workflows.replay.HistoryReplay;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * The admin API on the embedded default: the key guards every endpoint (and a refused request
 * changes nothing), and an exported history replays against the current workflow code. Listing,
 * redrive and re-run against a real server are in the e2e module (AdminApiIT).
 */
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.security.admin-api-key=test-admin-key-0123456789abcdef0123456789",
      "cs.security.caller-api-keys=admin-test-caller:" + AdminApiTest.CALLER_KEY
    })
@AutoConfigureMockMvc
class AdminApiTest {

  private static final String KEY = "test-admin-key-0123456789abcdef0123456789";
  static final String CALLER_KEY = "admin-test-caller-key-0123456789";

  @Autowired MockMvc mvc;
  @Autowired WorkflowClient client;

  private String answeredQuestion(String session) throws Exception {
    QuestionClient questions = new QuestionClient(mvc, CALLER_KEY);
    String workflowId =
        questions
            .ask(
                "{\"sessionId\":\""
                    + session
                    + "\",\"userId\":\"u1\",\"clientMsgId\":\"m1\","
                    + "\"text\":\"I still have not received my new card\"}")
            .get("workflowId")
            .asText();
    questions.awaitStage(workflowId, "ANSWERED");
    return workflowId;
  }

  @Test
  void everyAdminEndpointRefusesARequestWithoutTheRightKeyAndChangesNothing() throws Exception {
    String workflowId = answeredQuestion("admin-s1");
    String runBefore =
        client.newUntypedWorkflowStub(workflowId).describe().getExecution().getRunId();

    MockHttpServletRequestBuilder[] calls = {
      get("/api/v1/admin/questions/stuck"),
      get("/api/v1/admin/dead-letters"),
      post("/api/v1/admin/dead-letters/T-1/redrive"),
      post("/api/v1/admin/questions/" + workflowId + "/rerun").param("from", "START"),
      get("/api/v1/admin/questions/" + workflowId + "/history"),
    };
    for (MockHttpServletRequestBuilder call : calls) {
      mvc.perform(call).andExpect(status().isUnauthorized());
    }
    for (MockHttpServletRequestBuilder call : calls) {
      mvc.perform(call.header("X-Api-Key", KEY + "x")).andExpect(status().isUnauthorized());
    }

    String runAfter =
        client.newUntypedWorkflowStub(workflowId).describe().getExecution().getRunId();
    assertThat(runAfter).as("the refused re-run did not reset the question").isEqualTo(runBefore);
  }

  @Test
  void anExportedHistoryReplaysAgainstTheCurrentWorkflowCode() throws Exception {
    String workflowId = answeredQuestion("admin-s2");

    String json =
        mvc.perform(
                get("/api/v1/admin/questions/" + workflowId + "/history").header("X-Api-Key", KEY))
            .andExpect(status().isOk())
            .andReturn()
            .getResponse()
            .getContentAsString();
    HistoryReplay.Result replayed =
        HistoryReplay.replay(
            WorkflowExecutionHistory.fromJson(json, workflowId),
            HistoryReplay.CURRENT_WORKFLOWS,
            // the app's converter: with PAYLOAD_KEYS set (as bin/test does) the export is encrypted
            client.getOptions().getDataConverter());

    assertThat(replayed.problem()).isNull();
    assertThat(replayed.ok()).isTrue();
    assertThat(replayed.workflowType()).isEqualTo("QuestionWorkflow");
  }

  @Test
  void unknownWorkflowsAndDeadLettersAre404() throws Exception {
    mvc.perform(post("/api/v1/admin/dead-letters/T-none/redrive").header("X-Api-Key", KEY))
        .andExpect(status().isNotFound());
    mvc.perform(get("/api/v1/admin/questions/q-none/history").header("X-Api-Key", KEY))
        .andExpect(status().isNotFound());
    mvc.perform(post("/api/v1/admin/questions/q-none/rerun").header("X-Api-Key", KEY))
        .andExpect(status().isNotFound());
  }

  @Test
  void badParametersAre400() throws Exception {
    mvc.perform(
            get("/api/v1/admin/questions/stuck").param("stage", "NAPPING").header("X-Api-Key", KEY))
        .andExpect(status().isBadRequest());
    mvc.perform(get("/api/v1/admin/questions/stuck").param("limit", "0").header("X-Api-Key", KEY))
        .andExpect(status().isBadRequest());
    mvc.perform(
            post("/api/v1/admin/questions/q-x/rerun")
                .param("from", "YESTERDAY")
                .header("X-Api-Key", KEY))
        .andExpect(status().isBadRequest());
  }
}
