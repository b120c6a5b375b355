package dev.questionflow.api.question;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.api.config.CsProperties;
import dev.questionflow.api.ratelimit.AccessLimitExceededException;
import dev.questionflow.api.security.Requester;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.question.Question.Tier;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The event streams' caps and polls, on a clock and a scheduler the test moves by hand: no thread
 * and no sleep decides anything here.
 */
class StatusStreamsTest {

  private static final String WORKFLOW = "q-" + "0".repeat(32);

  /** Scheduled runs in the order they are due; the test advances the clock and runs them. */
  private static final class ManualScheduler implements StatusStreams.Scheduler {
    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final Deque<Runnable> tasks = new ArrayDeque<>();
    final Deque<Duration> delays = new ArrayDeque<>();
    final List<Duration> allDelays = new ArrayList<>();

    final Deque<Future<?>> futures = new ArrayDeque<>();

    @Override
    public Future<?> schedule(Runnable task, Duration delay) {
      tasks.add(task);
      delays.add(delay);
      allDelays.add(delay);
      CompletableFuture<?> future = new CompletableFuture<>();
      futures.add(future);
      return future;
    }

    /** Runs what is due, one run at a time, until {@code span} has passed. */
    void runFor(Duration span) {
      long end = nanos.get() + span.toNanos();
      while (!tasks.isEmpty() && futures.peek().isCancelled()) { // replaced by a later run
        tasks.poll();
        delays.poll();
        futures.poll();
      }
      while (!tasks.isEmpty() && nanos.get() + delays.peek().toNanos() <= end) {
        futures.poll();
        nanos.addAndGet(delays.poll().toNanos());
        tasks.poll().run();
      }
      nanos.set(end);
    }
  }

  private static CsProperties.Api api(int maxTotal, int maxPerAddress, Duration heartbeat) {
    return new CsProperties.Api(
        Duration.ofMinutes(10),
        Duration.ofMillis(250),
        3,
        500,
        maxTotal,
        maxPerAddress,
        heartbeat,
        null,
        null,
        Duration.ofSeconds(10),
        null,
        null);
  }

  private static QuestionStatus status(Stage stage) {
    return new QuestionStatus(WORKFLOW, stage, null, null, "card_arrival", null);
  }

  private static final AtomicInteger VISITORS = new AtomicInteger();

  private static Requester visitor() {
    return Requester.visitor("v-" + VISITORS.incrementAndGet());
  }

  private static StatusStreams streams(CsProperties.Api api, ManualScheduler scheduler) {
    return new StatusStreams(id -> status(Stage.PROCESSING), api, scheduler, scheduler.nanos::get);
  }

  @Test
  void visitorsInOneIpv6Slash64ShareTheAddressCap() {
    StatusStreams streams = streams(api(2000, 2, Duration.ofSeconds(20)), new ManualScheduler());
    Stage open = Stage.PROCESSING;
    streams.open(visitor(), "2001:db8:1:2::a", WORKFLOW, status(open));
    streams.open(visitor(), "2001:db8:1:2:ffff:ffff:ffff:fff0", WORKFLOW, status(open));

    // a third address of the same /64 (one subscriber's prefix): refused
    assertThatThrownBy(
            () -> streams.open(visitor(), "2001:0db8:0001:0002::b", WORKFLOW, status(open)))
        .isInstanceOf(AccessLimitExceededException.class);
    // the next /64 has places of its own; IPv4 stays one address per client
    streams.open(visitor(), "2001:db8:1:3::a", WORKFLOW, status(open));
    streams.open(visitor(), "203.0.113.7", WORKFLOW, status(open));
    streams.open(visitor(), "203.0.113.7", WORKFLOW, status(open));
    streams.open(visitor(), "203.0.113.8", WORKFLOW, status(open));
    assertThatThrownBy(() -> streams.open(visitor(), "203.0.113.7", WORKFLOW, status(open)))
        .isInstanceOf(AccessLimitExceededException.class);
    assertThat(streams.open()).isEqualTo(6);
  }

  @Test
  void visitorsHoldAtMostHalfOfTheInstancesStreams() {
    StatusStreams streams = streams(api(6, 60, Duration.ofSeconds(20)), new ManualScheduler());
    Stage open = Stage.PROCESSING;
    for (int i = 0; i < 3; i++) { // each a fresh visitor at a fresh address: only the total binds
      streams.open(visitor(), "198.51.100." + (i + 1), WORKFLOW, status(open));
    }
    assertThatThrownBy(() -> streams.open(visitor(), "198.51.100.9", WORKFLOW, status(open)))
        .isInstanceOf(AccessLimitExceededException.class);

    // the other half stays for back ends and staff
    Requester backend = Requester.backend("webchat", Tier.STANDARD);
    for (int i = 0; i < 3; i++) {
      streams.open(backend, null, WORKFLOW, status(open));
    }
    assertThatThrownBy(() -> streams.open(backend, null, WORKFLOW, status(open)))
        .isInstanceOf(AccessLimitExceededException.class);
    assertThat(streams.open()).isEqualTo(6);
  }

  @Test
  void aTicketedQuestionsStreamReadsItsStatusAtMostEveryTenSeconds() {
    ManualScheduler scheduler = new ManualScheduler();
    AtomicInteger reads = new AtomicInteger();
    AtomicReference<QuestionStatus> current = new AtomicReference<>(status(Stage.TICKETED));
    StatusStreams streams =
        new StatusStreams(
            id -> {
              reads.incrementAndGet();
              return current.get();
            },
            api(2000, 60, Duration.ofSeconds(3)),
            scheduler,
            scheduler.nanos::get);
    streams.open(Requester.backend("webchat", Tier.STANDARD), null, WORKFLOW, current.get());

    scheduler.runFor(Duration.ofSeconds(60));
    assertThat(reads.get()).as("status reads in a minute of TICKETED").isBetween(5, 6);
    assertThat(scheduler.allDelays)
        .as("still woken for the heartbeat (3 s here), so a closed tab is noticed")
        .allSatisfy(delay -> assertThat(delay).isLessThanOrEqualTo(Duration.ofSeconds(3)));

    // the person's reply (a signal) ends the stream at the next read
    current.set(
        new QuestionStatus(
            WORKFLOW,
            Stage.ANSWERED,
            null,
            null,
            "card_arrival",
            new Answer("Your card is on its way.", AnswerLevel.HUMAN, null, "T-1", null, null)));
    scheduler.runFor(Duration.ofSeconds(10));
    assertThat(streams.open()).isZero();
    assertThat(scheduler.tasks).isEmpty();
  }

  @Test
  void aQuestionInProgressIsStillReadEveryPollInterval() {
    ManualScheduler scheduler = new ManualScheduler();
    AtomicInteger reads = new AtomicInteger();
    StatusStreams streams =
        new StatusStreams(
            id -> {
              reads.incrementAndGet();
              return status(Stage.PROCESSING);
            },
            api(2000, 60, Duration.ofSeconds(20)),
            scheduler,
            scheduler.nanos::get);
    streams.open(
        Requester.backend("webchat", Tier.STANDARD), null, WORKFLOW, status(Stage.PROCESSING));

    scheduler.runFor(Duration.ofSeconds(2));
    assertThat(reads.get()).isEqualTo(8);
  }

  /** A feed the test drives: covers the question while {@code covering}. */
  private static final class TestFeed implements StatusStreams.Feed {
    final AtomicReference<StatusStreams.Watcher> watcher = new AtomicReference<>();
    volatile boolean covering = true;
    final AtomicInteger unwatched = new AtomicInteger();

    @Override
    public Runnable watch(String workflowId, StatusStreams.Watcher w) {
      watcher.set(w);
      return unwatched::incrementAndGet;
    }

    @Override
    public boolean covers(String workflowId) {
      return covering;
    }
  }

  @Test
  void aCoveredQuestionsStreamReadsNothingTakesEachDeliveredChangeAndPollsOnceUncovered() {
    ManualScheduler scheduler = new ManualScheduler();
    AtomicInteger reads = new AtomicInteger();
    TestFeed feed = new TestFeed();
    StatusStreams streams =
        new StatusStreams(
            id -> {
              reads.incrementAndGet();
              return status(Stage.PROCESSING);
            },
            feed,
            api(2000, 60, Duration.ofSeconds(20)),
            scheduler,
            scheduler.nanos::get);
    streams.open(
        Requester.backend("webchat", Tier.STANDARD), null, WORKFLOW, status(Stage.RECEIVED));

    scheduler.runFor(Duration.ofSeconds(30));
    assertThat(reads.get()).as("reads while the feed covers the question").isZero();

    // the feed stops covering it (Redis down): the stream polls at once, then every 250 ms
    feed.covering = false;
    feed.watcher.get().uncovered();
    scheduler.runFor(Duration.ofSeconds(1));
    assertThat(reads.get()).isBetween(4, 5);

    // covered again: the final answer comes through the feed and ends the stream
    feed.covering = true;
    feed.watcher
        .get()
        .deliver(
            new QuestionStatus(
                WORKFLOW,
                Stage.ANSWERED,
                null,
                null,
                "card_arrival",
                new Answer(
                    "Cards arrive within 3-5 days.", AnswerLevel.FAQ, null, null, null, null)),
            System.currentTimeMillis());
    assertThat(streams.open()).isZero();
    assertThat(feed.unwatched.get()).isEqualTo(1);
    int before = reads.get();
    scheduler.runFor(Duration.ofSeconds(5));
    assertThat(reads.get()).as("no read after the stream ended").isEqualTo(before);
  }
}
