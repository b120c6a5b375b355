package dev.questionflow.api.question;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.questionflow.activities.lane.InMemoryLaneLedger;
import dev.questionflow.activities.lane.LaneLedger;
import dev.questionflow.activities.lane.LaneLedgerActivities;
import dev.questionflow.activities.status.PublishedStatus;
import dev.questionflow.activities.status.StatusStore;
import dev.questionflow.workflows.lane.LaneSnapshot;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The instance's side of published statuses, on a store the test drives: a change opened once per
 * instance and handed to every stream of its question, notices lost in a reconnect or a silence
 * made up for by reading the key, a question without a published status left to poll, and a lane's
 * notice moving every waiting question with one ledger call.
 */
class StatusHubTest {

  private static final String LANE = "questions-model-primary";

  /** Keys and a listener, as Redis would hold and call them. */
  private static final class TestStore implements StatusStore {
    final Map<String, PublishedStatus> keys = new ConcurrentHashMap<>();

    /** Statuses the workflow contradicted (out of date after a Redis restart). */
    final Set<PublishedStatus> contradicted = ConcurrentHashMap.newKeySet();

    volatile Listener listener;
    volatile boolean live = true;

    @Override
    public boolean offer(PublishedStatus status) {
      keys.put(status.workflowId(), status);
      return true;
    }

    @Override
    public void offerFirst(PublishedStatus status) {}

    @Override
    public PublishedStatus latest(String workflowId) {
      return keys.get(workflowId);
    }

    @Override
    public void laneChanged(String lane) {}

    @Override
    public void listen(Listener listener) {
      this.listener = listener;
    }

    @Override
    public boolean live() {
      return live;
    }

    @Override
    public String kind() {
      return "test";
    }

    /** A change kept and announced. */
    void publish(PublishedStatus status, AtomicInteger opened) {
      keys.put(status.workflowId(), status);
      listener.status(
          status.workflowId(),
          status.version(),
          () -> {
            opened.incrementAndGet();
            return status;
          });
    }
  }

  /** What one stream received. */
  private static final class Received implements StatusStreams.Watcher {
    final List<QuestionStatus> statuses = new CopyOnWriteArrayList<>();
    final AtomicInteger uncovered = new AtomicInteger();

    @Override
    public void deliver(QuestionStatus status, long publishedAtMillis) {
      statuses.add(status);
    }

    @Override
    public void uncovered() {
      uncovered.incrementAndGet();
    }

    QuestionStatus last() {
      return statuses.isEmpty() ? null : statuses.get(statuses.size() - 1);
    }
  }

  private final TestStore store = new TestStore();
  private final AtomicInteger keyReads = new AtomicInteger();
  private final AtomicInteger positionCalls = new AtomicInteger();

  /** Ledger calls by method. */
  private final Map<String, AtomicInteger> ledgerCalls = new ConcurrentHashMap<>();

  /** While closed, reading a key waits (the hub's thread is busy). */
  private volatile java.util.concurrent.CountDownLatch keyReadsWait =
      new java.util.concurrent.CountDownLatch(0);

  private final InMemoryLaneLedger ledger = new InMemoryLaneLedger(Clock.systemUTC());
  private StatusHub hub;

  private StatusHub hub(Duration silence) {
    LaneLedger counted =
        (LaneLedger)
            Proxy.newProxyInstance(
                LaneLedger.class.getClassLoader(),
                new Class<?>[] {LaneLedger.class},
                (self, method, args) -> {
                  if (method.getName().equals("positions")) {
                    positionCalls.incrementAndGet();
                  }
                  ledgerCalls
                      .computeIfAbsent(method.getName(), name -> new AtomicInteger())
                      .incrementAndGet();
                  return method.invoke(ledger, args);
                });
    hub =
        new StatusHub(
            store,
            id -> {
              keyReads.incrementAndGet();
              try {
                keyReadsWait.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              PublishedStatus latest = store.latest(id);
              return store.contradicted.contains(latest) ? null : latest;
            },
            store.contradicted::contains,
            List.of(LANE),
            new LaneLedgerActivities(counted, Map.of(LANE, 5.0), Clock.systemUTC()),
            true,
            silence,
            received -> System.currentTimeMillis() - received.publishedAtMillis() <= 30_000,
            Duration.ofMillis(50),
            new SimpleMeterRegistry());
    hub.start();
    return hub;
  }

  @AfterEach
  void stop() {
    if (hub != null) {
      hub.stop();
    }
  }

  private static PublishedStatus published(String id, long version, Stage stage) {
    Answer answer =
        stage == Stage.ANSWERED
            ? new Answer("Cards arrive within 3-5 days.", AnswerLevel.FAQ, null, null, null, null)
            : null;
    return new PublishedStatus(
        id,
        version,
        System.currentTimeMillis(),
        new QuestionStatus(id, stage, null, null, "card_arrival", answer));
  }

  private static final Duration DEADLINE = Duration.ofSeconds(5);

  @Test
  void aChangeIsOpenedOnceAndHandedToEveryStreamOfItsQuestionOnly() {
    hub(Duration.ofMinutes(1));
    store.keys.put("q-1", published("q-1", 1, Stage.PROCESSING));
    Received one = new Received();
    Received two = new Received();
    hub.watch("q-1", one);
    hub.watch("q-1", two);
    await().atMost(DEADLINE).until(() -> one.last() != null && two.last() != null);
    assertThat(hub.covers("q-1")).isTrue();

    AtomicInteger opened = new AtomicInteger();
    store.publish(published("q-1", 2, Stage.ANSWERED), opened);
    AtomicInteger elsewhere = new AtomicInteger();
    store.publish(published("q-2", 1, Stage.ANSWERED), elsewhere); // streamed nowhere here

    await()
        .atMost(DEADLINE)
        .until(() -> one.last().stage() == Stage.ANSWERED && two.last().stage() == Stage.ANSWERED);
    assertThat(opened.get()).as("unsealed once for both streams").isEqualTo(1);
    assertThat(elsewhere.get()).as("a question nobody streams here is not unsealed").isZero();
    // an older notice arriving late changes nothing: the next change comes right after the
    // newer one (the hub takes a question's notices in order)
    store.listener.status("q-1", 1, () -> published("q-1", 1, Stage.PROCESSING));
    store.publish(published("q-1", 3, Stage.TICKETED), opened);
    await().atMost(DEADLINE).until(() -> one.last().stage() == Stage.TICKETED);
    assertThat(one.statuses)
        .extracting(QuestionStatus::stage)
        .containsExactly(Stage.PROCESSING, Stage.ANSWERED, Stage.TICKETED);
  }

  @Test
  void aChangeWhoseNoticeWasLostIsReadFromItsKeyWhenResubscribedOrAfterASilence() {
    hub(Duration.ofMillis(500));
    store.keys.put("q-1", published("q-1", 1, Stage.PROCESSING));
    Received stream = new Received();
    hub.watch("q-1", stream);
    await().atMost(DEADLINE).until(() -> stream.last() != null);

    // published while the subscription was down: no notice
    store.keys.put("q-1", published("q-1", 2, Stage.TICKETED));
    store.listener.subscribed();
    await().atMost(DEADLINE).until(() -> stream.last().stage() == Stage.TICKETED);

    // a notice lost without a reconnect: the silence check reads the key
    store.keys.put("q-1", published("q-1", 3, Stage.ANSWERED));
    await().atMost(DEADLINE).until(() -> stream.last().stage() == Stage.ANSWERED);
  }

  @Test
  void aStatusTheWorkflowContradictsAfterARedisRestartSendsItsStreamsToPolling() {
    hub(Duration.ofMinutes(1));
    PublishedStatus processing = published("q-1", 1, Stage.PROCESSING);
    store.keys.put("q-1", processing);
    Received stream = new Received();
    hub.watch("q-1", stream);
    await().atMost(DEADLINE).until(() -> hub.covers("q-1"));

    // Redis came back without the answer's publication, and the workflow has finished
    store.contradicted.add(processing);
    store.listener.subscribed();
    await().atMost(DEADLINE).until(() -> stream.uncovered.get() > 0);
    assertThat(hub.covers("q-1")).isFalse();

    // the next publication covers it again
    store.publish(published("q-1", 2, Stage.TICKETED), new AtomicInteger());
    await().atMost(DEADLINE).until(() -> hub.covers("q-1"));
    assertThat(stream.last().stage()).isEqualTo(Stage.TICKETED);
  }

  @Test
  void aQuestionWithoutAPublishedStatusIsNotCoveredSoItsStreamsPoll() {
    hub(Duration.ofMinutes(1));
    Received stream = new Received();
    hub.watch("q-9", stream);
    await().atMost(DEADLINE).until(() -> stream.uncovered.get() > 0);
    assertThat(hub.covers("q-9")).isFalse();
    assertThat(stream.statuses).isEmpty();

    store.publish(published("q-9", 4, Stage.PROCESSING), new AtomicInteger());
    await().atMost(DEADLINE).until(() -> hub.covers("q-9"));
    assertThat(stream.last().stage()).isEqualTo(Stage.PROCESSING);
  }

  @Test
  void aLaneNoticeMovesEveryWaitingQuestionWithOneLedgerCall() {
    hub(Duration.ofMinutes(1));
    for (int i = 0; i < 6; i++) {
      ledger.enter(LANE, "q-" + i, 5);
    }
    Received[] streams = new Received[6];
    for (int i = 4; i < 6; i++) {
      store.keys.put("q-" + i, published("q-" + i, 1, Stage.WAITING_IN_QUEUE));
      for (int s = 0; s < 3; s++) { // three streams each
        Received stream = new Received();
        hub.watch("q-" + i, stream);
        if (s == 0) {
          streams[i] = stream;
        }
      }
    }
    await()
        .atMost(DEADLINE)
        .until(
            () ->
                streams[4].last() != null
                    && Integer.valueOf(4).equals(streams[4].last().queuePosition())
                    && streams[5].last() != null
                    && Integer.valueOf(5).equals(streams[5].last().queuePosition()));

    int callsBefore = positionCalls.get();
    ledger.started(LANE, "q-0");
    ledger.started(LANE, "q-1");
    store.listener.lane(LANE, System.currentTimeMillis());
    await()
        .atMost(DEADLINE)
        .until(
            () ->
                Integer.valueOf(2).equals(streams[4].last().queuePosition())
                    || Integer.valueOf(0).equals(streams[4].last().queuePosition()));
    assertThat(streams[5].last().queuePosition()).isEqualTo(3);
    assertThat(positionCalls.get() - callsBefore)
        .as("ledger calls for 2 questions with 3 streams each")
        .isEqualTo(1);

    // q-4's call starts: out of the line, it is processing
    ledger.started(LANE, "q-4");
    store.listener.lane(LANE, System.currentTimeMillis());
    await().atMost(DEADLINE).until(() -> streams[4].last().stage() == Stage.PROCESSING);
  }

  @Test
  void whenNoticesStopArrivingEveryStreamIsToldToPollAndCoveredAgainWhenTheyDo() {
    hub(Duration.ofMinutes(1));
    store.keys.put("q-1", published("q-1", 1, Stage.PROCESSING));
    Received stream = new Received();
    hub.watch("q-1", stream);
    await().atMost(DEADLINE).until(() -> hub.covers("q-1"));

    store.live = false; // the subscription's connection is lost (Redis down)
    assertThat(hub.covers("q-1")).isFalse();
    await().atMost(DEADLINE).until(() -> stream.uncovered.get() > 0);

    store.live = true;
    store.keys.put("q-1", published("q-1", 2, Stage.ANSWERED)); // published meanwhile
    store.listener.subscribed(); // Lettuce resubscribed
    await().atMost(DEADLINE).until(() -> stream.last().stage() == Stage.ANSWERED);
    assertThat(hub.covers("q-1")).isTrue();
  }

  @Test
  void theStreamsOfOneQuestionOpeningTogetherReadItsKeyOnce() {
    hub(Duration.ofMinutes(1));
    // no published status: nothing shown, and each stream is told to poll
    List<Received> streams = new java.util.ArrayList<>();
    for (int s = 0; s < 25; s++) {
      Received stream = new Received();
      streams.add(stream);
      hub.watch("q-1", stream);
    }
    await()
        .atMost(DEADLINE)
        .until(() -> streams.stream().allMatch(stream -> stream.uncovered.get() > 0));
    assertThat(keyReads.get()).as("key reads for 25 streams of one question").isEqualTo(1);

    // a later stream of a covered question starts from what the others are shown
    store.publish(published("q-1", 1, Stage.PROCESSING), new AtomicInteger());
    await().atMost(DEADLINE).until(() -> hub.covers("q-1"));
    assertThat(hub.shown("q-1").stage()).isEqualTo(Stage.PROCESSING);
    assertThat(hub.shown("q-2")).as("not streamed here").isNull();
  }

  @Test
  void questionsJoiningALineTogetherArePlacedWithOneLedgerCallForAllOfThem() throws Exception {
    hub(Duration.ofMinutes(1));
    for (int i = 0; i < 20; i++) {
      ledger.enter(LANE, "q-" + i, 5);
    }
    // the hub's thread is held up, as by a burst, while 20 questions are published as waiting
    keyReadsWait = new java.util.concurrent.CountDownLatch(1);
    hub.watch("q-busy", new Received());
    await().atMost(DEADLINE).until(() -> keyReads.get() == 1);
    Received[] streams = new Received[20];
    for (int i = 0; i < 20; i++) {
      streams[i] = new Received();
      store.keys.put("q-" + i, published("q-" + i, 1, Stage.PROCESSING));
      hub.watch("q-" + i, streams[i]);
      store.publish(published("q-" + i, 2, Stage.WAITING_IN_QUEUE), new AtomicInteger());
    }
    ledgerCalls.clear();
    keyReadsWait.countDown();

    await()
        .atMost(DEADLINE)
        .until(
            () ->
                java.util.Arrays.stream(streams)
                    .allMatch(
                        stream ->
                            stream.last() != null
                                && stream.last().stage() == Stage.WAITING_IN_QUEUE));
    for (int i = 0; i < 20; i++) {
      assertThat(streams[i].last().queuePosition())
          .as("q-" + i)
          .isEqualTo(LaneSnapshot.shown(ledger.position(LANE, "q-" + i)));
    }
    assertThat(ledgerCalls.getOrDefault("positions", new AtomicInteger()).get())
        .as("position lookups for 20 questions")
        .isEqualTo(1);
    assertThat(ledgerCalls.getOrDefault("position", new AtomicInteger()).get()).isZero();
    assertThat(ledgerCalls.getOrDefault("deadlines", new AtomicInteger()).get()).isEqualTo(1);
    assertThat(ledgerCalls.getOrDefault("deadline", new AtomicInteger()).get()).isZero();
  }

  @Test
  void aPlaceIsShownAgainWhenItMovedByATenthOfItselfAndEveryStepNearTheFront() {
    QuestionStatus at100 = QuestionStatus.waiting("q-1", 100, 20, "card_arrival");
    assertThat(
            WatchedQuestion.movedEnough(
                at100, QuestionStatus.waiting("q-1", 95, 19, "card_arrival")))
        .isFalse();
    assertThat(
            WatchedQuestion.movedEnough(
                at100, QuestionStatus.waiting("q-1", 90, 18, "card_arrival")))
        .isTrue();
    QuestionStatus at5 = QuestionStatus.waiting("q-1", 5, 1, "card_arrival");
    assertThat(
            WatchedQuestion.movedEnough(at5, QuestionStatus.waiting("q-1", 4, 1, "card_arrival")))
        .isTrue();
    assertThat(
            WatchedQuestion.movedEnough(
                at100,
                new QuestionStatus("q-1", Stage.PROCESSING, null, null, "card_arrival", null)))
        .as("a change of stage")
        .isTrue();
    assertThat(WatchedQuestion.movedEnough(null, at100)).isTrue();
  }
}
