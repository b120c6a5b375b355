package dev.questionflow.activities.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.questionflow.activities.testing.TestRedis;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The published statuses in a real Redis at IT_REDIS_URL (skipped when none answers, fails under
 * CI=true): a version never replaced by an older one, the API's first status never replacing a
 * publication, the answer sealed in the key and on the channel, and notices heard by a subscriber.
 */
class RedisStatusStoreTest {

  private static final String ANSWER_TEXT = "Cards arrive within 3-5 working days";

  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private RedisStatusStore store;
  private final String workflowId = "q-test-" + UUID.randomUUID();

  @BeforeEach
  void connect() {
    client = RedisClient.create(TestRedis.URL);
    try {
      connection = client.connect();
    } catch (RuntimeException e) {
      client.shutdown();
      TestRedis.unavailable(e);
    }
    SealedText sealed = SealedText.with(PayloadKeys.parse(PayloadKeys.generateEntry("s1")));
    store =
        new RedisStatusStore(
            connection::sync,
            client::connectPubSub,
            sealed,
            Duration.ofMinutes(1),
            Duration.ofMillis(200),
            Clock.systemUTC());
  }

  @AfterEach
  void close() {
    if (connection != null) {
      store.close();
      connection.sync().del(RedisStatusStore.key(workflowId));
      connection.close();
    }
    client.shutdown();
  }

  private PublishedStatus status(long version, Stage stage, Answer answer) {
    return new PublishedStatus(
        workflowId,
        version,
        System.currentTimeMillis(),
        new QuestionStatus(workflowId, stage, null, null, "card_arrival", answer));
  }

  private static Answer answer() {
    return new Answer(ANSWER_TEXT, AnswerLevel.FAQ, "card_arrival", null, null, null);
  }

  @Test
  void anOlderVersionNeverReplacesANewerOne() {
    assertThat(store.offer(status(2_000, Stage.ANSWERED, answer()))).isTrue();
    assertThat(store.offer(status(1_000, Stage.PROCESSING, null))).as("older").isFalse();
    assertThat(store.offer(status(2_000, Stage.PROCESSING, null))).as("the same").isFalse();

    PublishedStatus latest = store.latest(workflowId);
    assertThat(latest.version()).isEqualTo(2_000);
    assertThat(latest.status().stage()).isEqualTo(Stage.ANSWERED);
    assertThat(latest.status().answer()).isEqualTo(answer());

    assertThat(store.offer(status(2_001, Stage.TICKETED, null))).as("newer").isTrue();
    assertThat(store.latest(workflowId).status().stage()).isEqualTo(Stage.TICKETED);
  }

  @Test
  void theApisFirstStatusNeverReplacesAPublicationAndAnyPublicationReplacesIt() {
    store.offerFirst(status(0, Stage.RECEIVED, null));
    assertThat(store.latest(workflowId).status().stage()).isEqualTo(Stage.RECEIVED);
    assertThat(store.offer(status(5, Stage.PROCESSING, null))).isTrue();
    store.offerFirst(status(0, Stage.RECEIVED, null));
    assertThat(store.latest(workflowId).status().stage()).isEqualTo(Stage.PROCESSING);
  }

  @Test
  void aStatusKeptByAnotherRedisThanTheOneServingItIsOfAnEarlierLife() {
    store.offer(status(3, Stage.PROCESSING, null));
    assertThat(store.latest(workflowId).fromEarlierLife()).as("stored by this Redis").isFalse();

    // what a Redis before a restart or failover left: another run ID, or none (an older build)
    String key = RedisStatusStore.key(workflowId);
    connection.sync().hset(key, "life", "a-run-id-of-another-life");
    assertThat(store.latest(workflowId).fromEarlierLife()).isTrue();
    connection.sync().hdel(key, "life");
    assertThat(store.latest(workflowId).fromEarlierLife()).isTrue();
    assertThat(store.latest(workflowId).status().stage()).isEqualTo(Stage.PROCESSING);

    store.offer(status(4, Stage.ANSWERED, answer()));
    assertThat(store.latest(workflowId).fromEarlierLife()).as("stored again").isFalse();
  }

  @Test
  void aQuestionWithoutAPublishedStatusHasNone() {
    assertThat(store.latest(workflowId)).isNull();
  }

  @Test
  void theAnswerIsSealedInTheKeyAndOnTheChannelAndASubscriberHearsEachChangeOnce() {
    List<String> messages = new CopyOnWriteArrayList<>();
    var spy = client.connectPubSub();
    spy.addListener(
        new io.lettuce.core.pubsub.RedisPubSubAdapter<>() {
          @Override
          public void message(String channel, String message) {
            messages.add(message);
          }
        });
    spy.sync().subscribe(RedisStatusStore.CHANGES);
    List<PublishedStatus> heard = new CopyOnWriteArrayList<>();
    List<String> lanes = new CopyOnWriteArrayList<>();
    store.listen(
        new StatusStore.Listener() {
          @Override
          public void status(String id, long version, Supplier<PublishedStatus> opened) {
            if (id.equals(workflowId)) {
              heard.add(opened.get());
            }
          }

          @Override
          public void lane(String lane, long atMillis) {
            lanes.add(lane);
          }

          @Override
          public void subscribed() {}
        });
    await().atMost(Duration.ofSeconds(5)).until(store::live);

    store.offer(status(7, Stage.ANSWERED, answer()));
    store.offer(status(6, Stage.PROCESSING, null)); // older: kept nowhere, heard by nobody
    store.laneChanged("lane-" + workflowId);

    await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 1 && lanes.size() == 1);
    assertThat(heard.get(0).version()).isEqualTo(7);
    assertThat(heard.get(0).status().answer().text()).isEqualTo(ANSWER_TEXT);
    assertThat(lanes).containsExactly("lane-" + workflowId);
    String stored = connection.sync().hget(RedisStatusStore.key(workflowId), "s");
    assertThat(stored).startsWith("enc2:").doesNotContain("Cards");
    await().atMost(Duration.ofSeconds(5)).until(() -> !messages.isEmpty());
    assertThat(messages).hasSize(1).allSatisfy(m -> assertThat(m).doesNotContain("Cards"));
    spy.close();
  }
}
