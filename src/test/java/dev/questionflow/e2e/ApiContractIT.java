package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.DeserializationFeature;
import dev.questionflow.client.ApiClient;
import dev.questionflow.client.ApiException;
import dev.questionflow.client.ApiResponse;
import dev.questionflow.client.api.QuestionsApi;
import dev.questionflow.client.model.AdmittedQuestion;
import dev.questionflow.client.model.Answer;
import dev.questionflow.client.model.AskRequest;
import dev.questionflow.client.model.Problem;
import dev.questionflow.client.model.ProblemErrorsInner;
import dev.questionflow.client.model.QuestionStatus;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/openapi.json is enough to build a chat back end on: a client generated from it
 * (openapi-generator, e2e/pom.xml) and nothing else asks the packaged app a question, follows its
 * status until it is answered, reads the answer, and reads refusals as the problems the contract
 * promises. Its mapper rejects unknown fields, so everything the app sends is in the contract.
 */
class ApiContractIT {

  private static AppProcess app;

  @BeforeAll
  static void startApp() throws Exception {
    app = AppProcess.start("api-contract", Map.of("TASK_QUEUE", Infra.uniqueTaskQueue("contract")));
  }

  @AfterAll
  static void stopApp() throws Exception {
    if (app != null) {
      app.close();
    }
  }

  /** The generated client as a chat back end sets it up: the app's address and its API key. */
  private static QuestionsApi questions(String apiKey) {
    ApiClient client = new ApiClient();
    client.updateBaseUri("http://127.0.0.1:" + app.port());
    client.setObjectMapper(
        ApiClient.createDefaultObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES));
    client.setReadTimeout(Duration.ofSeconds(10));
    if (apiKey != null) {
      // the native library leaves credentials to the caller: the bearer scheme of the contract
      client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + apiKey));
    }
    return new QuestionsApi(client);
  }

  @Test
  void aChatBackEndAsksFollowsTheStatusAndReadsTheAnswer() throws Exception {
    QuestionsApi api = questions(AppProcess.CALLER_KEY);
    String session = "contract-" + UUID.randomUUID().toString().substring(0, 8);

    ApiResponse<AdmittedQuestion> accepted =
        api.askWithHttpInfo(
            new AskRequest()
                .sessionId(session)
                .userId("user-" + session)
                .clientMsgId("m1")
                .text("I still have not received my new card")
                .tier(AskRequest.TierEnum.STANDARD));

    assertThat(accepted.getStatusCode()).isEqualTo(202);
    AdmittedQuestion admitted = accepted.getData();
    String workflowId = admitted.getWorkflowId();
    assertThat(workflowId).startsWith("q-");
    assertThat(admitted.getStatusUrl()).isEqualTo("/api/v1/questions/" + workflowId);
    assertThat(admitted.getDuplicate()).isFalse();
    assertThat(admitted.getQueued()).isFalse();
    assertThat(accepted.getHeaders().get("Location")).containsExactly(admitted.getStatusUrl());

    QuestionStatus answered =
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () -> api.status(workflowId),
                status -> status.getStage() == QuestionStatus.StageEnum.ANSWERED);

    assertThat(answered.getWorkflowId()).isEqualTo(workflowId);
    assertThat(answered.getUpgrading()).isFalse();
    Answer answer = answered.getAnswer();
    assertThat(answer.getLevel()).isEqualTo(Answer.LevelEnum.FAQ);
    assertThat(answer.getFaqId()).isEqualTo("card_arrival");
    assertThat(answer.getText()).isNotBlank();
    assertThat(answer.getRevision()).isEqualTo(1);

    // asked again (a second click on "send"): the same workflow, marked as a duplicate
    AdmittedQuestion again =
        api.ask(
            new AskRequest()
                .sessionId(session)
                .userId("user-" + session)
                .clientMsgId("m1")
                .text("I still have not received my new card"));
    assertThat(again.getWorkflowId()).isEqualTo(workflowId);
    assertThat(again.getDuplicate()).isTrue();
  }

  @Test
  void refusalsAreTheProblemsTheContractDescribes() throws Exception {
    QuestionsApi api = questions(AppProcess.CALLER_KEY);

    ApiException invalid =
        catchThrowableOfType(
            ApiException.class,
            () ->
                api.ask(
                    new AskRequest().sessionId("contract-invalid").userId("u1").clientMsgId("m1")));
    Problem badRequest = problemOf(invalid, 400);
    assertThat(badRequest.getErrors()).extracting(ProblemErrorsInner::getField).contains("text");

    String unknown = "q-" + "0".repeat(16) + "0".repeat(24);
    problemOf(catchThrowableOfType(ApiException.class, () -> api.status(unknown)), 404);

    QuestionsApi anonymous = questions(null);
    problemOf(catchThrowableOfType(ApiException.class, () -> anonymous.status(unknown)), 401);
  }

  /** The refusal's status, its content type and its body as the contract's Problem. */
  private static Problem problemOf(ApiException refusal, int status) throws Exception {
    assertThat(refusal).as("refused with %s", status).isNotNull();
    assertThat(refusal.getCode()).isEqualTo(status);
    assertThat(refusal.getResponseHeaders().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    Problem problem =
        ApiClient.createDefaultObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .readValue(refusal.getResponseBody(), Problem.class);
    assertThat(problem.getStatus()).isEqualTo(status);
    assertThat(problem.getTitle()).isNotBlank();
    return problem;
  }
}
