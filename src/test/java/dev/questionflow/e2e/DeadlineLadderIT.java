package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.activities.fakemodel.FakeModelServer.Served;
import dev.questionflow.faq.FaqEntry;
import dev.questionflow.faq.FaqPacks;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 27's rules on the dev server, Redis and a fake model, with two app instances on one lane (2
 * calls/s, at most 6 in flight across both): a question whose wait would not fit its patience is
 * answered from the FAQ at once and never reaches the model (admission); one without an FAQ match
 * waits until its deadline and is handed over, and no call of it starts later (dequeue); the ledger
 * holds nothing once a storm drained; a slow model gets as many calls in flight as the cap allows,
 * across both instances, and none twice; an upgrade reaches the customer over SSE.
 */
class DeadlineLadderIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final double RATE = 2;
  private static final int MAX_IN_FLIGHT = 6;
  private static final String BUSY = "Our assistant is busy right now";

  private static FakeModelServer model;
  private static volatile Duration latency = Duration.ofSeconds(1);
  private static AppProcess first;
  private static AppProcess second;
  private static String lane;
  private static RedisClient redisClient;
  private static StatefulRedisConnection<String, String> redis;
  private static List<String> faqQuestions;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.script(call -> Reply.text("Model answer to: " + call.userMessage()).after(latency));
    String taskQueue = Infra.uniqueTaskQueue("deadline");
    lane = taskQueue + "-model-primary";
    Map<String, String> env = FlowControlIT.laneEnv(taskQueue, model, RATE, MAX_IN_FLIGHT);
    // the rate stays where it is set: these tests are about deadlines, not the adaptive rate
    env.put("CS_ADAPTIVE_ENABLED", "false");
    CompletableFuture<AppProcess> one = AppProcess.starting("deadline-1", env, AppProcess.TEST_JVM);
    CompletableFuture<AppProcess> two = AppProcess.starting("deadline-2", env, AppProcess.TEST_JVM);
    first = one.join();
    second = two.join();
    redisClient = RedisClient.create(Infra.redisUrl());
    redis = redisClient.connect();
    faqQuestions = new ArrayList<>();
    for (FaqEntry entry : FaqPacks.loadFromClasspath("banking77").entries()) {
      faqQuestions.add(entry.question());
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (redis != null) {
      redis.close();
      redisClient.shutdown();
    }
    Infra.closeAll(first, second, model);
  }

  /** A question as the back end saw it: accepted when, first answered when, with what. */
  record Asked(
      String text, String workflowId, Instant accepted, Instant answered, JsonNode status) {
    double secondsToAnswer() {
      return Duration.between(accepted, answered).toMillis() / 1000.0;
    }

    /** Answered below the model at admission: its wait would not have fit its patience. */
    boolean shed() {
      return status.at("/answer/reason").asText().contains("busy, ");
    }
  }

  @Test
  void aQuestionWhoseWaitWouldNotFitItsPatienceIsAnsweredFromTheFaqAtOnce() throws Exception {
    latency = Duration.ofSeconds(1);
    String run = UUID.randomUUID().toString().substring(0, 6);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      texts.add(faqQuestions.get(i) + " #" + i + " (" + run + ")");
    }

    List<Asked> asked = askAll(texts, Map.of("patienceSeconds", 3));

    List<Asked> shed = asked.stream().filter(Asked::shed).toList();
    List<Asked> byModel =
        asked.stream().filter(a -> a.status().at("/answer/level").asText().equals("RAG")).toList();
    List<Asked> atDeadline =
        asked.stream()
            .filter(a -> a.status().at("/answer/reason").asText().contains("queue deadline"))
            .toList();
    System.out.printf(
        "[deadline] 24 at once, 2 calls/s, 3 s patience: %d shed at once (slowest %.1f s), %d at"
            + " their deadline, %d by the model, slowest of all %.1f s%n",
        shed.size(),
        shed.stream().mapToDouble(Asked::secondsToAnswer).max().orElse(0),
        atDeadline.size(),
        byModel.size(),
        asked.stream().mapToDouble(Asked::secondsToAnswer).max().orElseThrow());
    assertThat(shed).as("more wait than 3 s at 2 calls/s allow").hasSizeGreaterThanOrEqualTo(8);
    assertThat(byModel).as("those whose wait fits get the model").hasSizeGreaterThanOrEqualTo(4);
    assertThat(shed)
        .allSatisfy(
            a -> {
              assertThat(a.secondsToAnswer()).as(a.text()).isLessThan(2.5);
              assertThat(a.status().at("/answer/level").asText()).isEqualTo("FAQ");
              assertThat(a.status().at("/answer/reason").asText()).contains("busy, ");
            });
    assertThat(asked)
        .allSatisfy(a -> assertThat(a.secondsToAnswer()).as(a.text()).isLessThan(3 + 1 + 2.5));
    assertNoCallFor(shed);
    assertNoCallAfterItsAnswer(asked);
    // the workflow metrics reach Micrometer every few seconds (the SDK's Tally scope)
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(shedCount("eta")).isGreaterThanOrEqualTo(shed.size());
              assertThat(shedCount("deadline")).isGreaterThanOrEqualTo(atDeadline.size());
            });
    assertTheLedgerEmpties();
  }

  /**
   * Adaptive LIFO on two priority keys: a burst fills the front line (1 s) and the standing line
   * behind it; a question asked after the burst joins the front line and is called before the
   * burst's standing questions, instead of waiting out the burst's backlog.
   */
  @Test
  void aQuestionAfterABurstIsCalledBeforeTheBurstsStandingLine() throws Exception {
    latency = Duration.ofSeconds(1);
    // The scenario needs, when the question after the burst reaches its lane, a front-line ticket
    // for it (refilled at the lane's rate after the burst took them) and burst questions still in
    // the standing line (at most a front line's worth: 2 here, called within about 2 s). On a
    // loaded machine that window is sometimes missed: then the run shows it (the question was
    // shed, or nobody was left standing) and the scenario is arranged again, at most 3 times.
    for (int attempt = 1; attempt <= 3; attempt++) {
      if (burstThenOneMore(attempt)) {
        return;
      }
    }
    throw new AssertionError(
        "in 3 attempts, the question after the burst never found the burst's standing line");
  }

  /**
   * One burst of 12 and a question after it: true when the question after the burst was called
   * before some of the burst's standing line. False when it was not, or the scenario did not form
   * (see above); a first-in-first-out lane returns false every time.
   */
  private boolean burstThenOneMore(int attempt) throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 6);
    List<String> burst = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      burst.add(faqQuestions.get(40 + i) + " #" + i + " (" + run + ")");
    }
    String late = faqQuestions.get(60) + " (after the burst, " + run + ")";
    // a lane at rest: no front-line arrivals of the other tests left in its 5 s window
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> frontArrivalsOfTheLastSeconds(6) == 0);

    CompletableFuture<List<Asked>> burstAsked =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return askAll(burst, Map.of(), Duration.ZERO, burst.size());
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    // the next question comes as the burst's front line is being called (a ticket refilled)
    await().atMost(Duration.ofSeconds(30)).until(() -> modelCallsOf(run) >= 2);
    Asked after = askAll(List.of(late), Map.of()).get(0);
    List<Asked> burstAnswers = burstAsked.join();

    Instant lateCalled = calledAt(late);
    long burstCalledLater =
        burst.stream()
            .map(DeadlineLadderIT::calledAt)
            .filter(at -> at.isAfter(lateCalled) && !at.equals(Instant.MAX))
            .count();
    long standing =
        burstAnswers.stream()
            .filter(a -> a.status().at("/answer/level").asText().equals("RAG"))
            .count();
    System.out.printf(
        "[deadline] attempt %d, burst of 12 at 2 calls/s: %d answered by the model; the question"
            + " after it had its answer after %.1f s at %s level, called before %d of the burst"
            + " (%s)%n",
        attempt,
        standing,
        after.secondsToAnswer(),
        after.status().at("/answer/level").asText(),
        burstCalledLater,
        after.status().at("/answer/reason").asText());
    assertNoCallAfterItsAnswer(burstAnswers);
    assertTheLedgerEmpties();
    // Relative, not a fixed number of seconds (a loaded machine stretches every step alike): the
    // question after the burst reached the model before burst questions that were asked first.
    return after.status().at("/answer/level").asText().equals("RAG") && burstCalledLater >= 1;
  }

  /** Entries at the lane's front lines in the last {@code seconds} (the ledger's stats buckets). */
  private static long frontArrivalsOfTheLastSeconds(int seconds) {
    long now = System.currentTimeMillis() / 1000;
    long sum = 0;
    for (long second = now - seconds; second <= now; second++) {
      String front = redis.sync().hget("cs:lane:{" + lane + "}:stats:" + second, "front");
      sum += front == null ? 0 : Long.parseLong(front);
    }
    return sum;
  }

  private static long modelCallsOf(String run) {
    return model.calls().stream().filter(c -> c.userMessage().contains(run)).count();
  }

  /** When the model received the call for this question (its first, if any). */
  private static Instant calledAt(String text) {
    return model.served().stream()
        .filter(s -> s.call().userMessage().equals(text))
        .map(Served::receivedAt)
        .min(Instant::compareTo)
        .orElse(Instant.MAX);
  }

  @Test
  void aQuestionWithoutAnFaqMatchWaitsUntilItsDeadlineThenIsHandedOverWithoutACall()
      throws Exception {
    latency = Duration.ofMillis(2500);
    String run = UUID.randomUUID().toString().substring(0, 6);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      texts.add("What is the airspeed velocity of an unladen swallow? #" + i + " (" + run + ")");
    }

    List<Asked> asked = askAll(texts, Map.of("patienceSeconds", 2));

    List<Asked> handedOver =
        asked.stream()
            .filter(a -> a.status().at("/answer/level").asText().equals("TICKET"))
            .toList();
    System.out.printf(
        "[deadline] 10 without a match, 2 s patience: %d handed over at their deadline (%s s)%n",
        handedOver.size(),
        handedOver.stream().map(a -> String.format("%.1f", a.secondsToAnswer())).toList());
    assertThat(handedOver).as("2 calls/s start 4-5 of 10 within 2 s").hasSizeGreaterThan(3);
    assertThat(handedOver)
        .allSatisfy(
            a -> {
              assertThat(a.status().at("/answer/reason").asText()).contains("queue deadline");
              // at the deadline (2 s after the lane entry), not after the 60 s the queue allows
              assertThat(a.secondsToAnswer()).as(a.text()).isLessThan(2 + 3.0);
            });
    assertNoCallFor(handedOver);
    assertNoCallAfterItsAnswer(asked);
    assertTheLedgerEmpties();
  }

  @Test
  void aSlowModelGetsItsCallsInFlightUpToTheCapAcrossInstancesAndNoneTwice() throws Exception {
    latency = Duration.ofSeconds(5);
    String run = UUID.randomUUID().toString().substring(0, 6);
    model.clearCalls();
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 14; i++) {
      texts.add(faqQuestions.get(30 + i) + " #" + i + " (" + run + ")");
    }

    // 2 per second, as the lane's rate: at 5 s a call, 10 would be in flight without the cap
    List<Asked> asked = askAll(texts, Map.of(), Duration.ofMillis(500));

    List<Served> served = model.served();
    int mostInFlight = mostAtOnce(served);
    long byModel =
        asked.stream().filter(a -> a.status().at("/answer/level").asText().equals("RAG")).count();
    System.out.printf(
        "[deadline] 5 s model, cap %d: at most %d calls in flight at the model, %d of 14 by the"
            + " model%n",
        MAX_IN_FLIGHT, mostInFlight, byModel);
    assertThat(mostInFlight).isLessThanOrEqualTo(MAX_IN_FLIGHT).isGreaterThanOrEqualTo(5);
    assertThat(served.stream().map(s -> s.call().userMessage()).toList())
        .as("no question called twice")
        .doesNotHaveDuplicates();
    // the cap serves 6 calls per 5 s, less than the 2 questions a second: past the first 6 and a
    // short front line, the lane has no turn to give, and the rest are answered below it at once
    assertThat(byModel).isGreaterThanOrEqualTo(8);
    assertThat(asked)
        .filteredOn(a -> !a.status().at("/answer/level").asText().equals("RAG"))
        .allSatisfy(a -> assertThat(a.secondsToAnswer()).as(a.text()).isLessThan(2.5));
    assertTheLedgerEmpties();
  }

  @Test
  void anUpgradeReachesTheCustomerOverTheEventStreamAfterTheQuickAnswer() throws Exception {
    latency = Duration.ofMillis(500);
    String run = UUID.randomUUID().toString().substring(0, 6);
    List<String> crowd = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      crowd.add(faqQuestions.get(50 + i) + " #" + i + " (" + run + ")");
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<CompletableFuture<String>> crowding = new ArrayList<>();
    for (String text : crowd) {
      crowding.add(CompletableFuture.supplyAsync(() -> post(text, Map.of()), pool));
    }
    crowding.forEach(CompletableFuture::join);
    pool.shutdown();
    String watched = faqQuestions.get(70) + " (" + run + ")";
    String workflowId = post(watched, Map.of("patienceSeconds", 1, "upgrade", true));

    List<JsonNode> answers = new ArrayList<>();
    List<JsonNode> statuses = new ArrayList<>();
    for (AppProcess.Event event : first.events(workflowId, Duration.ofSeconds(90))) {
      (("answer".equals(event.name())) ? answers : statuses).add(JSON.readTree(event.data()));
    }

    assertThat(answers).hasSize(2);
    assertThat(answers.get(0).path("revision").asInt()).isEqualTo(1);
    assertThat(answers.get(0).path("level").asText()).isEqualTo("FAQ");
    assertThat(answers.get(0).path("notice").asText()).startsWith(BUSY);
    assertThat(answers.get(1).path("revision").asInt()).isEqualTo(2);
    assertThat(answers.get(1).path("level").asText()).isEqualTo("RAG");
    assertThat(answers.get(1).path("text").asText()).isEqualTo("Model answer to: " + watched);
    assertThat(statuses).anySatisfy(s -> assertThat(s.path("upgrading").asBoolean()).isTrue());
    assertThat(statuses)
        .last()
        .satisfies(s -> assertThat(s.path("upgrading").asBoolean()).isFalse());
    assertTheLedgerEmpties();
  }

  @Test
  void aCustomerWhoAsksAgainWhileTheModelWorksGetsTheFaqAnswerThenTheModels() throws Exception {
    latency = Duration.ofSeconds(6);
    String text = faqQuestions.get(74) + " (" + UUID.randomUUID().toString().substring(0, 6) + ")";
    String session = "dl-again-" + UUID.randomUUID().toString().substring(0, 8);
    String body =
        JSON.writeValueAsString(
            Map.of(
                "sessionId",
                session,
                "userId",
                "user-" + session,
                "clientMsgId",
                "m1",
                "text",
                text));
    HttpResponse<String> asked = first.post("/api/v1/questions", body);
    assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
    String workflowId = JSON.readTree(asked.body()).get("workflowId").asText();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> model.calls().stream().anyMatch(c -> c.userMessage().equals(text)));

    // the back end gives up waiting and sends it again, through the other instance
    HttpResponse<String> again = second.post("/api/v1/questions", body);
    assertThat(again.statusCode()).as(again.body()).isEqualTo(202);
    assertThat(JSON.readTree(again.body()).get("duplicate").asBoolean()).isTrue();
    Asked quick = awaitFirstAnswer(text, workflowId, Instant.now());
    JsonNode fuller = awaitRevision(workflowId, 2);

    assertThat(quick.status().at("/answer/level").asText()).isEqualTo("FAQ");
    assertThat(quick.status().at("/answer/revision").asInt()).isEqualTo(1);
    assertThat(quick.status().at("/answer/notice").asText()).contains("fuller answer follows");
    assertThat(quick.status().path("upgrading").asBoolean()).isTrue();
    assertThat(fuller.at("/answer/level").asText()).isEqualTo("RAG");
    assertThat(fuller.at("/answer/text").asText()).isEqualTo("Model answer to: " + text);
    assertThat(fuller.path("upgrading").asBoolean()).isFalse();
    assertThat(model.calls().stream().filter(c -> c.userMessage().equals(text)))
        .as("the call went on: no second one")
        .hasSize(1);
    assertTheLedgerEmpties();
  }

  private static JsonNode awaitRevision(String workflowId, int revision) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> (last[0] = first.status(workflowId)).at("/answer/revision").asInt() == revision);
    return last[0];
  }

  /** Asks all at once (8 senders, alternating instances) and waits for every first answer. */
  private static List<Asked> askAll(List<String> texts, Map<String, Object> extra)
      throws Exception {
    return askAll(texts, extra, Duration.ZERO);
  }

  private static List<Asked> askAll(List<String> texts, Map<String, Object> extra, Duration every)
      throws Exception {
    return askAll(texts, extra, every, 8);
  }

  private static List<Asked> askAll(
      List<String> texts, Map<String, Object> extra, Duration every, int senders) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(senders);
    Map<String, Instant> accepted = new ConcurrentHashMap<>();
    List<CompletableFuture<Asked>> pending = new ArrayList<>();
    for (String text : texts) {
      pending.add(
          CompletableFuture.supplyAsync(
              () -> {
                Instant at = Instant.now();
                String id = post(text, extra);
                accepted.put(id, at);
                return awaitFirstAnswer(text, id, at);
              },
              pool));
      Thread.sleep(every.toMillis());
    }
    List<Asked> asked = pending.stream().map(CompletableFuture::join).toList();
    pool.shutdown();
    return asked;
  }

  private static String post(String text, Map<String, Object> extra) {
    Map<String, Object> body = new HashMap<>(extra);
    String session = "dl-" + UUID.randomUUID().toString().substring(0, 8);
    body.put("sessionId", session);
    body.put("userId", "user-" + session);
    body.put("clientMsgId", "m1");
    body.put("text", text);
    AppProcess app = Math.abs(text.hashCode()) % 2 == 0 ? first : second;
    try {
      HttpResponse<String> response = app.post("/api/v1/questions", JSON.writeValueAsString(body));
      assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
      return JSON.readTree(response.body()).get("workflowId").asText();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Polls the status (every 100 ms) until it has an answer: the customer's first answer. */
  private static Asked awaitFirstAnswer(String text, String workflowId, Instant accepted) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              last[0] = first.status(workflowId);
              return !last[0].path("answer").isNull() && last[0].has("answer");
            });
    return new Asked(text, workflowId, accepted, Instant.now(), last[0]);
  }

  /** Questions shed for this reason, summed over both instances. */
  private static double shedCount(String reason) throws Exception {
    String label = "reason=\"" + reason + "\"";
    return first.metric("cs_answer_shed_total", label)
        + second.metric("cs_answer_shed_total", label);
  }

  /** The model never saw these questions. */
  private static void assertNoCallFor(List<Asked> asked) {
    List<String> called = model.calls().stream().map(c -> c.userMessage()).toList();
    assertThat(asked).allSatisfy(a -> assertThat(called).doesNotContain(a.text()));
  }

  /** No call reached the model after its customer had an answer (allowing 200 ms of polling). */
  private static void assertNoCallAfterItsAnswer(List<Asked> asked) {
    Map<String, Instant> answered = new HashMap<>();
    asked.forEach(a -> answered.put(a.text(), a.answered()));
    for (Served served : model.served()) {
      Instant answer = answered.get(served.call().userMessage());
      if (answer != null) {
        assertThat(served.receivedAt())
            .as("call for %s", served.call().userMessage())
            .isBefore(answer.plusMillis(200));
      }
    }
  }

  /** The most calls the model was working on at one moment. */
  private static int mostAtOnce(List<Served> served) {
    List<long[]> edges = new ArrayList<>();
    for (Served s : served) {
      edges.add(new long[] {s.receivedNanos(), 1});
      edges.add(new long[] {s.receivedNanos() + s.delay().toNanos(), -1});
    }
    edges.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    int now = 0;
    int most = 0;
    for (long[] edge : edges) {
      now += (int) edge[1];
      most = Math.max(most, now);
    }
    return most;
  }

  /**
   * Once the storm drained, the lane's ledger has no waiting or queued entry and no call in flight,
   * and nothing it remembers as started is older than twice the chain budget.
   */
  private static void assertTheLedgerEmpties() {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              var sync = redis.sync();
              String key = "cs:lane:{" + lane + "}:";
              assertThat(sync.zcard(key + "waiting")).as("waiting").isZero();
              assertThat(sync.zcard(key + "enqueued")).as("enqueued").isZero();
              assertThat(sync.zcard(key + "inflight")).as("in flight").isZero();
              assertThat(
                      sync.zcount(
                          key + "started",
                          io.lettuce.core.Range.create(0, System.currentTimeMillis() - 60_000)))
                  .as("started more than 60 s ago")
                  .isZero();
            });
  }
}
