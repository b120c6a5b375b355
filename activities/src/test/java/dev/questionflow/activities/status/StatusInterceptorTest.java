package dev.questionflow.activities.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import dev.questionflow.workflows.status.StatusBeacon;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The worker's status interceptor on the SDK's test server: a question's changes published once
 * each, at its upserts and its return, with versions that grow across continue-as-new; nothing
 * published again when its history is replayed; and the history the same with the interceptor as
 * without it.
 */
class StatusInterceptorTest {

  @WorkflowInterface
  public interface Asking {
    @WorkflowMethod
    Answer run(int runs);

    @QueryMethod
    String ping();
  }

  /**
   * Processing, then (on its first run) handed over and continued as new, then answered: a stage
   * upsert, an upsert a caller cannot see, a memo, the return.
   */
  public static class AskingImpl implements Asking {
    private Stage stage = Stage.RECEIVED;
    private Answer answer;

    @Override
    public Answer run(int runs) {
      String id = Workflow.getInfo().getWorkflowId();
      StatusBeacon.follow(() -> new QuestionStatus(id, stage, null, null, "cards", answer));
      stage = Stage.PROCESSING;
      Workflow.upsertTypedSearchAttributes(SearchAttributes.STAGE.valueSet(stage.name()));
      Workflow.upsertTypedSearchAttributes(SearchAttributes.PRIORITY.valueSet(5L)); // unseen
      if (runs > 1) {
        stage = Stage.TICKETED;
        Workflow.upsertTypedSearchAttributes(SearchAttributes.STAGE.valueSet(stage.name()));
        Workflow.continueAsNew(runs - 1);
      }
      answer =
          new Answer("Cards arrive within 3-5 days", AnswerLevel.HUMAN, null, "T-1", null, null);
      stage = Stage.ANSWERED;
      Workflow.upsertMemo(Map.of("answer", answer));
      return answer;
    }

    @Override
    public String ping() {
      return "pong";
    }
  }

  private final List<PublishedStatus> published = new CopyOnWriteArrayList<>();
  private TestWorkflowEnvironment env;

  private TestWorkflowEnvironment environment(boolean intercepted) {
    WorkerFactoryOptions.Builder factory = WorkerFactoryOptions.newBuilder();
    if (intercepted) {
      factory.setWorkerInterceptors(new StatusInterceptor(published::add, () -> 42L));
    }
    TestWorkflowEnvironment environment =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder().setWorkerFactoryOptions(factory.build()).build());
    environment.registerSearchAttribute(
        SearchAttributes.STAGE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    environment.registerSearchAttribute(
        SearchAttributes.PRIORITY.getName(), IndexedValueType.INDEXED_VALUE_TYPE_INT);
    environment.newWorker("q").registerWorkflowImplementationTypes(AskingImpl.class);
    environment.start();
    return environment;
  }

  @BeforeEach
  void start() {
    env = environment(true);
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private Asking stub(TestWorkflowEnvironment environment, String id) {
    return environment
        .getWorkflowClient()
        .newWorkflowStub(
            Asking.class, WorkflowOptions.newBuilder().setTaskQueue("q").setWorkflowId(id).build());
  }

  @Test
  void eachVisibleChangeIsPublishedOnceWithGrowingVersionsAcrossContinueAsNew() {
    Answer answer = stub(env, "q-1").run(2);

    assertThat(published)
        .extracting(p -> p.status().stage())
        .containsExactly(Stage.PROCESSING, Stage.TICKETED, Stage.PROCESSING, Stage.ANSWERED);
    assertThat(published).allSatisfy(p -> assertThat(p.workflowId()).isEqualTo("q-1"));
    assertThat(published).allSatisfy(p -> assertThat(p.publishedAtMillis()).isEqualTo(42L));
    assertThat(published.get(3).status().answer()).isEqualTo(answer);
    for (int i = 1; i < published.size(); i++) {
      assertThat(published.get(i).version())
          .as("version %d after %d", i, i - 1)
          .isGreaterThan(published.get(i - 1).version());
    }

    // a query of a closed workflow replays its whole history on the worker: nothing again
    env.getWorkflowClient().newWorkflowStub(Asking.class, "q-1").ping();
    assertThat(published).hasSize(4);
  }

  @Test
  void theHistoryIsTheSameWithTheInterceptorAsWithout() {
    stub(env, "q-2").run(1);
    var with = env.getWorkflowClient().fetchHistory("q-2").getHistory().getEventsList();
    TestWorkflowEnvironment bare = environment(false);
    try {
      stub(bare, "q-2").run(1);
      var without = bare.getWorkflowClient().fetchHistory("q-2").getHistory().getEventsList();
      assertThat(with.stream().map(e -> e.getEventType()).toList())
          .isEqualTo(without.stream().map(e -> e.getEventType()).toList());
    } finally {
      bare.close();
    }
    assertThat(published).hasSize(2);
  }
}
