package dev.questionflow.activities.outcome;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.workflows.outcome.QuestionRecord;
import dev.questionflow.workflows.outcome.QuestionRecords;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OutcomeInterceptorTest {

  @WorkflowInterface
  public interface Finishing {
    @WorkflowMethod
    String run(boolean finish);

    @QueryMethod
    String ping();
  }

  public static class FinishingImpl implements Finishing {
    @Override
    public String run(boolean finish) {
      QuestionRecords facts = QuestionRecords.current();
      facts.asked("web", "VIP");
      facts.intent("cards");
      facts.answered("m1", 30, 5, 0.0001);
      facts.answered("m2", 12, 4, 0.00002);
      if (finish) {
        facts.finish("ANSWERED", "LLM", null, List.of("primary model: ModelTimeout"), 250);
      }
      return "done";
    }

    @Override
    public String ping() {
      return "pong";
    }
  }

  private final List<QuestionRecord> written = new CopyOnWriteArrayList<>();
  private TestWorkflowEnvironment env;

  @BeforeEach
  void start() {
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder()
                        .setWorkerInterceptors(new OutcomeInterceptor(written::add))
                        .build())
                .build());
    env.newWorker("q").registerWorkflowImplementationTypes(FinishingImpl.class);
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private Finishing stub(String id) {
    return env.getWorkflowClient()
        .newWorkflowStub(
            Finishing.class,
            WorkflowOptions.newBuilder().setTaskQueue("q").setWorkflowId(id).build());
  }

  @Test
  void aFinishedQuestionIsWrittenOnceWithItsSummedTokensAndNotAgainOnReplay() {
    Finishing question = stub("q-1");
    question.run(true);

    assertThat(written).hasSize(1);
    QuestionRecord record = written.get(0);
    assertThat(record.workflowId()).isEqualTo("q-1");
    assertThat(record.caller()).isEqualTo("web");
    assertThat(record.tier()).isEqualTo("VIP");
    assertThat(record.intent()).isEqualTo("cards");
    assertThat(record.model()).isEqualTo("m2");
    assertThat(record.promptTokens()).isEqualTo(42);
    assertThat(record.completionTokens()).isEqualTo(9);
    // each answer priced at its own model's prices when it ran, summed
    assertThat(record.cost()).isCloseTo(0.00012, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(record.firstAnswerMillis()).isEqualTo(250);
    assertThat(record.reasons()).containsExactly("primary model: ModelTimeout");

    // a query of a closed workflow replays its whole history on the worker
    env.getWorkflowClient().newWorkflowStub(Finishing.class, "q-1").ping();
    assertThat(written).hasSize(1);
  }

  @Test
  void aWorkflowThatDidNotFinishAQuestionWritesNothing() {
    stub("q-2").run(false);
    assertThat(written).isEmpty();
  }
}
