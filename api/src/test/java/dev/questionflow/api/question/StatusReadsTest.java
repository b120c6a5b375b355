package dev.questionflow.api.question;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.lane.InMemoryLaneLedger;
import dev.questionflow.activities.lane.LaneLedgerActivities;
import dev.questionflow.activities.status.InMemoryStatusStore;
import dev.questionflow.activities.status.PublishedStatus;
import dev.questionflow.activities.status.StatusStore;
import dev.questionflow.api.config.CsProperties;
import dev.questionflow.api.config.StatusStreamsProperties;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.testing.TestWorkflowEnvironment;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ClassPathResource;

/**
 * Status reads with published statuses, against the SDK's test server where no question exists: a
 * read that reaches Temporal answers 404 (NotFoundException), so a status returned proves Temporal
 * was not asked, and a 404 proves it was.
 */
class StatusReadsTest {

  private static final String ID = "q-" + "1".repeat(40);

  private TestWorkflowEnvironment temporal;
  private final InMemoryStatusStore memory =
      new InMemoryStatusStore(100, Duration.ofHours(1), Clock.systemUTC());
  private final InMemoryLaneLedger ledger = new InMemoryLaneLedger(Clock.systemUTC());
  private volatile boolean redisDown;

  /** The store restarted: what it kept is of an earlier life. */
  private volatile boolean restarted;

  private StatusReads reads;
  private CsProperties properties;

  @BeforeEach
  void start() throws IOException {
    temporal = TestWorkflowEnvironment.newInstance();
    StandardEnvironment environment = new StandardEnvironment();
    new YamlPropertySourceLoader()
        .load("application.yml", new ClassPathResource("application.yml"))
        .forEach(source -> environment.getPropertySources().addLast(source));
    properties = Binder.get(environment).bind("cs", CsProperties.class).get();
    StatusStreamsProperties streams =
        Binder.get(environment).bind("cs.status-streams", StatusStreamsProperties.class).get();
    // the store as Redis would be: down when the test says so
    StatusStore store =
        (StatusStore)
            Proxy.newProxyInstance(
                StatusStore.class.getClassLoader(),
                new Class<?>[] {StatusStore.class},
                (self, method, args) -> {
                  if (redisDown) {
                    throw new IllegalStateException("Redis is down");
                  }
                  Object result = method.invoke(memory, args);
                  if (restarted && result instanceof PublishedStatus kept) {
                    return new PublishedStatus(
                        kept.workflowId(),
                        kept.version(),
                        kept.publishedAtMillis(),
                        kept.status(),
                        true);
                  }
                  return result;
                });
    reads =
        new StatusReads(
            temporal.getWorkflowClient(),
            new LaneLedgerActivities(ledger, Map.of(lane(), 5.0), Clock.systemUTC()),
            properties,
            new SimpleMeterRegistry(),
            new PublishedStatuses(
                store,
                streams.enabled(),
                properties.ladder().chainBudget(),
                id -> temporal.getWorkflowClient().newUntypedWorkflowStub(id).describe(),
                new SimpleMeterRegistry()));
  }

  @AfterEach
  void stop() {
    temporal.close();
  }

  private String lane() {
    return "questions-model-primary";
  }

  private static PublishedStatus published(long version, long at, Stage stage, Answer answer) {
    return new PublishedStatus(
        ID, version, at, new QuestionStatus(ID, stage, null, null, "card_arrival", answer));
  }

  @Test
  void aPublishedStatusIsReadWithoutTemporal() {
    Answer answer =
        new Answer("Cards arrive in 3-5 days.", AnswerLevel.FAQ, null, null, null, null);
    memory.offer(published(7, System.currentTimeMillis(), Stage.ANSWERED, answer));

    QuestionStatus status = reads.read(ID);
    assertThat(status.stage()).isEqualTo(Stage.ANSWERED);
    assertThat(status.answer()).isEqualTo(answer);
  }

  @Test
  void withoutAPublishedStatusOrWithRedisDownTheReadGoesToTemporal() {
    assertThatThrownBy(() -> reads.read(ID)).isInstanceOf(NotFoundException.class);

    memory.offer(published(7, System.currentTimeMillis(), Stage.PROCESSING, null));
    assertThat(reads.read(ID).stage()).isEqualTo(Stage.PROCESSING);
    redisDown = true;
    assertThatThrownBy(() -> reads.read(ID)).isInstanceOf(NotFoundException.class);
  }

  @Test
  void theApisReceivedCountsAsTheStatusWhileAWorkerIsDueToPublish() {
    memory.offerFirst(published(0, System.currentTimeMillis(), Stage.RECEIVED, null));
    assertThat(reads.read(ID).stage()).isEqualTo(Stage.RECEIVED);
  }

  @Test
  void theApisReceivedOlderThanTheChainBudgetIsNotTakenSoTheReadGoesToTemporal() {
    // what a worker that never publishes (an older build) leaves
    long longAgo =
        System.currentTimeMillis() - properties.ladder().chainBudget().toMillis() - 1_000;
    memory.offerFirst(published(0, longAgo, Stage.RECEIVED, null));
    assertThatThrownBy(() -> reads.read(ID)).isInstanceOf(NotFoundException.class);
  }

  @Test
  void aWaitingQuestionsPlaceComesFromTheLedgerAndOutOfTheLineItIsProcessing() {
    for (int i = 0; i < 5; i++) {
      ledger.enter(lane(), "q-ahead-" + i, 5);
    }
    ledger.enter(lane(), ID, 5);
    memory.offer(published(3, System.currentTimeMillis(), Stage.WAITING_IN_QUEUE, null));

    QuestionStatus waiting = reads.read(ID);
    assertThat(waiting.stage()).isEqualTo(Stage.WAITING_IN_QUEUE);
    assertThat(waiting.queuePosition()).isEqualTo(5);
    assertThat(waiting.intent()).isEqualTo("card_arrival");

    ledger.started(lane(), ID);
    assertThat(reads.read(ID).stage()).isEqualTo(Stage.PROCESSING);
  }

  @Test
  void anUnfinishedStatusFromBeforeARedisRestartIsCheckedAgainstTheWorkflow() {
    memory.offer(published(7, System.currentTimeMillis(), Stage.PROCESSING, null));
    assertThat(reads.read(ID).stage()).as("taken before any restart").isEqualTo(Stage.PROCESSING);

    restarted = true; // Redis restarted after that publication
    assertThatThrownBy(() -> reads.read(ID))
        .as("checked against Temporal, which has no such question")
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void aFinalStatusFromBeforeARedisRestartIsTakenAsItIs() {
    Answer answer =
        new Answer("Cards arrive in 3-5 days.", AnswerLevel.FAQ, null, null, null, null);
    memory.offer(published(9, System.currentTimeMillis(), Stage.ANSWERED, answer));
    restarted = true;
    assertThat(reads.read(ID).answer()).as("no change follows a final status").isEqualTo(answer);
  }
}
