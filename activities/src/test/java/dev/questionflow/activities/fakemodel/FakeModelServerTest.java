package dev.questionflow.activities.fakemodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.questionflow.activities.fakemodel.FakeModelServer.Call;
import dev.questionflow.activities.fakemodel.FakeModelServer.Faults;
import dev.questionflow.activities.fakemodel.FakeModelServer.Latency;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.activities.fakemodel.FakeModelServer.Served;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fake model server's fault scripts, driven by the real langchain4j {@code OpenAiChatModel}
 * (maxRetries 0) and by raw {@link HttpClient} calls. Assertions are made on what the server
 * recorded, never on sleeps.
 *
 * <p>What langchain4j 1.19.0 {@code OpenAiChatModel.chat(...)} throws per fault (asserted in {@link
 * #eachFaultMapsToALangchain4jException()}; also written to /tmp/fakemodel-exceptions.md).
 * Retriable = subclass of {@code dev.langchain4j.exception.RetriableException}, NonRetriable = of
 * {@code NonRetriableException}:
 *
 * <pre>
 * fault                                   thrown                                            message
 * 400 (any body, incl. context_length_exceeded,
 *      content_policy_violation, content_filter)
 *                                         InvalidRequestException (NonRetriable)             the raw response body
 * 401, 403                                AuthenticationException (NonRetriable)             the raw response body
 * 404                                     ModelNotFoundException (NonRetriable)              the raw response body
 * 408                                     TimeoutException (Retriable)                       the raw response body
 * 409, 422 (other 4xx)                    InvalidRequestException (NonRetriable)             the raw response body
 * 429 (+ Retry-After)                     RateLimitException (Retriable)                     the raw response body; Retry-After is NOT exposed
 * 500, 502, 503, 504                      InternalServerException (Retriable)                the raw response body
 *   (all HTTP errors: cause = dev.langchain4j.exception.HttpException with statusCode())
 * 200 non-JSON body / random bytes        java.lang.RuntimeException (NOT a LangChain4jException)
 *                                                                                            "com.fasterxml.jackson.core.JsonParseException: ..." (cause JsonParseException)
 * 200 JSON without choices / choices []   InternalServerException (Retriable), no cause      "Chat completion failed: no choices returned in response"
 * 200 content "" or null                  nothing thrown; aiMessage().text() == null
 * 200 garbled content (U+FFFD, controls)  nothing thrown; the garbage text is returned as is
 * hang / reply slower than the timeout    TimeoutException (Retriable)                       "request timed out" (cause java.net.http.HttpTimeoutException)
 * connection dropped, no response         java.lang.RuntimeException (NOT a LangChain4jException)
 *                                                                                            "java.io.IOException: HTTP/1.1 header parser received no bytes"
 * connection refused (server down)        java.lang.RuntimeException (NOT a LangChain4jException)
 *                                                                                            "java.net.ConnectException" (cause ConnectException)
 * </pre>
 */
class FakeModelServerTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CLIENT_TIMEOUT = Duration.ofMillis(300);

  private final FakeModelServer fake = FakeModelServer.start();
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @AfterEach
  void stop() {
    fake.close();
  }

  private OpenAiChatModel model(Duration timeout) {
    return OpenAiChatModel.builder()
        .baseUrl(fake.baseUrl())
        .apiKey("test-key")
        .modelName("fake-model")
        .timeout(timeout)
        .maxRetries(0)
        .build();
  }

  private HttpResponse<String> post(String question) throws Exception {
    String body =
        JSON.writeValueAsString(
            Map.of(
                "model",
                "fake-model",
                "messages",
                List.of(Map.of("role", "user", "content", question))));
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(fake.baseUrl() + "/chat/completions"))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static Call call(String question) {
    return new Call("fake-model", null, question, null);
  }

  private List<Integer> statuses() {
    return fake.served().stream().map(Served::status).toList();
  }

  @Test
  void keepsTheOriginalApi() throws Exception {
    assertThat(model(Duration.ofSeconds(5)).chat("Where is my card?"))
        .isEqualTo("Model answer to: Where is my card?");
    fake.script(call -> Reply.text("scripted"));
    assertThat(model(Duration.ofSeconds(5)).chat("x")).isEqualTo("scripted");
    fake.script(call -> Reply.error(503));
    assertThat(post("y").statusCode()).isEqualTo(503);

    assertThat(fake.calls())
        .extracting(Call::userMessage)
        .containsExactly("Where is my card?", "x", "y");
    assertThat(fake.calls()).extracting(Call::sequence).containsExactly(1L, 2L, 3L);
    assertThat(fake.totalCalls()).isEqualTo(3);
    assertThat(fake.statusCounts()).containsExactly(Map.entry(200, 2L), Map.entry(503, 1L));
    fake.clearCalls();
    assertThat(fake.calls()).isEmpty();
    assertThat(fake.totalCalls()).isZero();
  }

  @Test
  void aboveTheQuotaCallsGet429WithRetryAfterAndAnOpenAiErrorBody() throws Exception {
    AtomicLong clock = new AtomicLong(0);
    fake.clock(clock::get);
    fake.script(Faults.seeded(1).quota(3, Duration.ofSeconds(1)));

    List<HttpResponse<String>> first = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      first.add(post("burst " + i));
    }
    assertThat(first).extracting(HttpResponse::statusCode).containsExactly(200, 200, 200, 429, 429);
    HttpResponse<String> limited = first.get(3);
    assertThat(limited.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(limited.headers().firstValue("x-ratelimit-limit-requests")).hasValue("3");
    JsonNode error = JSON.readTree(limited.body()).path("error");
    assertThat(error.path("code").asText()).isEqualTo("rate_limit_exceeded");
    assertThat(error.path("type").asText()).isEqualTo("requests");
    assertThat(error.path("message").asText()).contains("Rate limit reached");

    clock.set(999_999_999L); // the first admitted calls are still inside the window
    assertThat(post("still limited").statusCode()).isEqualTo(429);
    clock.set(1_000_000_000L); // now they have left it: three permits again
    assertThat(
            List.of(
                post("a").statusCode(),
                post("b").statusCode(),
                post("c").statusCode(),
                post("d").statusCode()))
        .containsExactly(200, 200, 200, 429);

    assertThat(fake.statusCounts()).containsExactly(Map.entry(200, 6L), Map.entry(429, 4L));
    assertThat(fake.maxCallsInWindow(Duration.ofSeconds(1), status -> status == 200)).isEqualTo(3);
    assertThat(fake.maxCallsInWindow(Duration.ofSeconds(1), status -> true)).isEqualTo(6);

    // the real client sees a RateLimitException (retriable) - it does not expose Retry-After
    Throwable thrown =
        catchThrowable(() -> model(Duration.ofSeconds(5)).chat(UserMessage.from("over quota")));
    assertThat(thrown)
        .isExactlyInstanceOf(RateLimitException.class)
        .hasMessageContaining("rate_limit_exceeded");
    assertThat(((HttpException) thrown.getCause()).statusCode()).isEqualTo(429);
  }

  @Test
  void aFixedRetryAfterIsSentAsConfigured() throws Exception {
    fake.clock(() -> 0L);
    fake.script(Faults.seeded(1).quota(1, Duration.ofSeconds(1), 7));

    assertThat(post("first").statusCode()).isEqualTo(200);
    HttpResponse<String> second = post("second");
    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(second.headers().firstValue("Retry-After")).hasValue("7");
  }

  @Test
  void theTokenBucketLetsABurstThroughThenRefillsContinuouslyUpToTheBurst() throws Exception {
    AtomicLong clock = new AtomicLong();
    fake.clock(clock::get);
    fake.script(Faults.seeded(1).tokenBucket(5, 5));

    for (int i = 0; i < 5; i++) {
      assertThat(post("burst " + i).statusCode()).isEqualTo(200);
    }
    HttpResponse<String> refused = post("empty");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(refused.body()).contains("rate_limit_exceeded");

    clock.set(199_000_000L); // 0.995 of a token back: still none
    assertThat(post("too early").statusCode()).isEqualTo(429);
    clock.set(200_000_000L); // one token at 5/s
    assertThat(post("refilled").statusCode()).isEqualTo(200);
    assertThat(post("again empty").statusCode()).isEqualTo(429);

    clock.set(60_000_000_000L); // a quiet minute refills to the burst, no further
    List<Integer> afterQuiet = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      afterQuiet.add(post("after quiet " + i).statusCode());
    }
    assertThat(afterQuiet).containsExactly(200, 200, 200, 200, 200, 429);
  }

  @Test
  void aTokenBucketAtItsRateNeverRefusesAndAFixedRetryAfterIsSent() throws Exception {
    AtomicLong clock = new AtomicLong();
    fake.clock(clock::get);
    fake.script(Faults.seeded(1).tokenBucket(10, 1, 3));

    for (int i = 0; i < 20; i++) {
      clock.set(i * 100_000_000L); // exactly 10/s
      assertThat(post("paced " + i).statusCode()).isEqualTo(200);
    }
    clock.set(1_950_000_000L); // half a token since the last call
    HttpResponse<String> refused = post("early");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("3");
  }

  @Test
  void theCallLogIsReadableOverHttpWithWallClockTimesAndStatuses() throws Exception {
    fake.script(Faults.seeded(1).tokenBucket(1, 1).latency(Latency.fixed(Duration.ofMillis(20))));
    long before = System.currentTimeMillis();
    assertThat(post("first").statusCode()).isEqualTo(200);
    assertThat(post("second").statusCode()).isEqualTo(429);
    long after = System.currentTimeMillis();

    JsonNode log = JSON.readTree(get(FakeModelServer.CALL_LOG_PATH));
    assertThat(log).hasSize(2);
    assertThat(log.get(0).path("sequence").asLong()).isEqualTo(1);
    assertThat(log.get(0).path("userMessage").asText()).isEqualTo("first");
    assertThat(log.get(0).path("status").asInt()).isEqualTo(200);
    assertThat(log.get(0).path("delayMillis").asLong()).isEqualTo(20);
    assertThat(log.get(1).path("userMessage").asText()).isEqualTo("second");
    assertThat(log.get(1).path("status").asInt()).isEqualTo(429);
    for (JsonNode call : log) {
      assertThat(call.path("epochMicros").asLong() / 1000).isBetween(before, after);
    }
    assertThat(log.get(1).path("epochMicros").asLong())
        .isGreaterThanOrEqualTo(log.get(0).path("epochMicros").asLong());

    JsonNode fromSecond = JSON.readTree(get(FakeModelServer.CALL_LOG_PATH + "?from=2"));
    assertThat(fromSecond).hasSize(1);
    assertThat(fromSecond.get(0).path("userMessage").asText()).isEqualTo("second");
    // not a chat call: the log itself is not recorded
    assertThat(fake.calls()).hasSize(2);
  }

  private String get(String path) throws Exception {
    String root = fake.baseUrl().substring(0, fake.baseUrl().length() - "/v1".length());
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(root + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  @Test
  void theQuotaHoldsInEverySlidingWindowUnderConcurrentRealTimeLoad() throws Exception {
    int permits = 5;
    Duration window = Duration.ofSeconds(1);
    fake.script(Faults.seeded(3).quota(permits, window));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        String question = "load " + i;
        results.add(pool.submit(() -> post(question).statusCode()));
      }
      for (Future<Integer> result : results) {
        assertThat(result.get()).isIn(200, 429);
      }
    } finally {
      pool.shutdownNow();
    }

    List<Served> served = fake.served();
    assertThat(served).hasSize(40);
    assertThat(fake.maxCallsInWindow(window, status -> status == 200)).isLessThanOrEqualTo(permits);
    // and no call was refused while a permit was free: each 429 had exactly `permits` admitted
    // calls before it
    for (Served s : served) {
      long admittedBefore =
          served.stream()
              .filter(o -> o.sequence() < s.sequence() && o.status() == 200)
              .filter(o -> s.receivedNanos() - o.receivedNanos() < window.toNanos())
              .count();
      if (s.status() == 429) {
        assertThat(admittedBefore).isEqualTo(permits);
      } else {
        assertThat(admittedBefore).isLessThan(permits);
      }
    }
    assertThat(fake.count(200) + fake.count(429)).isEqualTo(40);
  }

  @Test
  void errorRateIsSeededExactlyAndWithinABinomialBound() throws Exception {
    long seed = 42;
    fake.script(Faults.seeded(seed).errors(0.2, 500));
    for (int i = 0; i < 200; i++) {
      post("q" + i);
    }

    // the i-th admitted call draws the i-th nextDouble() of new SplittableRandom(seed)
    SplittableRandom replay = new SplittableRandom(seed);
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      expected.add(replay.nextDouble() < 0.2 ? 500 : 200);
    }
    assertThat(statuses()).isEqualTo(expected);
    long errors = fake.count(500);
    // mean 40, sd sqrt(200*0.2*0.8) = 5.66: the seeded count is fixed, and a sane draw lies within
    // 4 sd
    assertThat(errors).isBetween(18L, 62L);
    assertThat(fake.statusCounts()).containsOnlyKeys(200, 500);
    assertThat(fake.totalCalls()).isEqualTo(200);
  }

  @Test
  void severalStatusesByProbabilityAreReproducibleFromTheSeed() throws Exception {
    Map<Integer, Double> rates = new LinkedHashMap<>();
    rates.put(500, 0.10);
    rates.put(503, 0.05);
    rates.put(429, 0.05);
    fake.script(Faults.seeded(7).errors(rates));
    for (int i = 0; i < 200; i++) {
      post("q" + i);
    }
    List<Integer> firstRun = statuses();

    SplittableRandom replay = new SplittableRandom(7);
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      double u = replay.nextDouble();
      expected.add(u < 0.10 ? 500 : u < 0.15 ? 503 : u < 0.20 ? 429 : 200);
    }
    assertThat(firstRun).isEqualTo(expected);

    // same seed, fresh script: the very same sequence
    fake.clearCalls();
    fake.script(Faults.seeded(7).errors(rates));
    for (int i = 0; i < 200; i++) {
      post("q" + i);
    }
    assertThat(statuses()).isEqualTo(firstRun);
    assertThat(fake.count(500))
        .isBetween(6L, 34L); // binomial(200, 0.10): mean 20, sd 4.2, +-3.3 sd
  }

  @Test
  void eachFaultMapsToALangchain4jException() {
    OpenAiChatModel model = model(CLIENT_TIMEOUT);
    record Case(String fault, Reply reply, Class<? extends Throwable> thrown, String message) {}
    List<Case> cases =
        List.of(
            new Case(
                "400 generic",
                Reply.error(400),
                InvalidRequestException.class,
                "scripted failure 400"),
            new Case(
                "400 context length",
                Reply.contextLengthExceeded(),
                InvalidRequestException.class,
                "context_length_exceeded"),
            new Case(
                "400 content policy",
                Reply.contentPolicyViolation(),
                InvalidRequestException.class,
                "content_policy_violation"),
            new Case(
                "400 content filter",
                Reply.contentFiltered(),
                InvalidRequestException.class,
                "\"code\":\"content_filter\""),
            new Case("401", Reply.unauthorized(), AuthenticationException.class, "invalid_api_key"),
            new Case(
                "403", Reply.error(403), AuthenticationException.class, "scripted failure 403"),
            new Case("404", Reply.error(404), ModelNotFoundException.class, "scripted failure 404"),
            new Case("408", Reply.error(408), TimeoutException.class, "scripted failure 408"),
            new Case(
                "422", Reply.error(422), InvalidRequestException.class, "scripted failure 422"),
            new Case("429", Reply.rateLimited(2), RateLimitException.class, "rate_limit_exceeded"),
            new Case(
                "500", Reply.error(500), InternalServerException.class, "scripted failure 500"),
            new Case(
                "502", Reply.error(502), InternalServerException.class, "scripted failure 502"),
            new Case(
                "503", Reply.error(503), InternalServerException.class, "scripted failure 503"),
            new Case(
                "504", Reply.error(504), InternalServerException.class, "scripted failure 504"),
            new Case("200 not JSON", Reply.notJson(), RuntimeException.class, "JsonParseException"),
            new Case(
                "200 random bytes",
                Reply.randomBytes(7, 64),
                RuntimeException.class,
                "JsonParseException"),
            new Case(
                "200 missing choices",
                Reply.missingChoices(),
                InternalServerException.class,
                "no choices returned"),
            new Case(
                "200 choices []",
                Reply.emptyChoices(),
                InternalServerException.class,
                "no choices returned"),
            new Case("hang", Reply.hang(), TimeoutException.class, "request timed out"),
            new Case(
                "slower than the timeout",
                Reply.text("late").after(Duration.ofSeconds(2)),
                TimeoutException.class,
                "request timed out"));

    for (Case c : cases) {
      fake.script(call -> c.reply());
      long started = System.nanoTime();
      Throwable thrown = catchThrowable(() -> model.chat(UserMessage.from(c.fault())));
      long elapsedMillis = (System.nanoTime() - started) / 1_000_000;

      assertThat(thrown)
          .as(c.fault())
          .isExactlyInstanceOf(c.thrown())
          .hasMessageContaining(c.message());
      if (c.reply().kind() == Reply.Kind.ERROR) {
        assertThat(thrown.getCause()).as(c.fault()).isExactlyInstanceOf(HttpException.class);
        assertThat(((HttpException) thrown.getCause()).statusCode())
            .as(c.fault())
            .isEqualTo(c.reply().status());
      }
      if (c.thrown() == TimeoutException.class && c.reply().status() != 408) {
        assertThat(thrown.getCause()).as(c.fault()).isInstanceOf(HttpTimeoutException.class);
        assertThat(elapsedMillis).as(c.fault()).isGreaterThanOrEqualTo(CLIENT_TIMEOUT.toMillis());
      }
    }
    assertThat(fake.served())
        .extracting(s -> s.call().userMessage())
        .containsExactlyElementsOf(cases.stream().map(Case::fault).toList());
    assertThat(fake.count(FakeModelServer.NO_RESPONSE)).isEqualTo(1);
  }

  @Test
  void emptyAndGarbledContentAreReturnedNotThrown() {
    OpenAiChatModel model = model(Duration.ofSeconds(5));

    fake.script(call -> Reply.emptyContent());
    assertThat(model.chat(UserMessage.from("empty")).aiMessage().text()).isNull();
    fake.script(call -> Reply.nullContent());
    assertThat(model.chat(UserMessage.from("null")).aiMessage().text()).isNull();

    Reply garbled = Reply.garbled(7);
    fake.script(call -> garbled);
    ChatResponse response = model.chat(UserMessage.from("garbled"));
    assertThat(response.aiMessage().text()).isEqualTo(garbled.content()).contains("\uFFFD");
    assertThat(Reply.garbled(7).content()).isEqualTo(garbled.content());
  }

  @Test
  void droppedAndRefusedConnectionsSurfaceAsPlainRuntimeExceptions() {
    OpenAiChatModel model = model(Duration.ofSeconds(5));
    // the hang is decided under the server's lock; releasing right after drops that connection, no
    // response
    fake.script(
        call -> {
          CompletableFuture.runAsync(fake::releaseHangs);
          return Reply.hang();
        });
    Throwable dropped = catchThrowable(() -> model.chat(UserMessage.from("dropped")));
    assertThat(dropped)
        .isExactlyInstanceOf(RuntimeException.class)
        .hasMessageContaining("IOException");

    FakeModelServer gone = FakeModelServer.start();
    String url = gone.baseUrl();
    gone.close();
    OpenAiChatModel nowhere =
        OpenAiChatModel.builder()
            .baseUrl(url)
            .apiKey("k")
            .modelName("m")
            .timeout(CLIENT_TIMEOUT)
            .maxRetries(0)
            .build();
    Throwable refused = catchThrowable(() -> nowhere.chat(UserMessage.from("refused")));
    assertThat(refused)
        .isExactlyInstanceOf(RuntimeException.class)
        .hasRootCauseInstanceOf(java.nio.channels.ClosedChannelException.class);
  }

  @Test
  void aHangEndsWhenTheServerCloses() throws Exception {
    FakeModelServer hanging = FakeModelServer.start();
    hanging.script(call -> Reply.hang());
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(hanging.baseUrl() + "/chat/completions"))
            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"messages\":[]}"))
            .build();
    CompletableFuture<HttpResponse<String>> pending =
        http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    // wait on recorded data: the server has taken the call
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (hanging.totalCalls() == 0 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(1_000_000); // poll recorded data
    }
    assertThat(hanging.statusCounts()).containsExactly(Map.entry(FakeModelServer.NO_RESPONSE, 1L));
    assertThat(pending).isNotDone();

    hanging.close();
    Throwable thrown = catchThrowable(() -> pending.get());
    assertThat(thrown).hasRootCauseInstanceOf(java.io.IOException.class);
  }

  @Test
  void latencyIsSampledFromTheSeedAndApplied() throws Exception {
    Latency uniform = Latency.uniform(Duration.ofMillis(20), Duration.ofMillis(60));
    fake.script(Faults.seeded(5).latency(uniform));
    OpenAiChatModel model = model(Duration.ofSeconds(5));
    long[] measuredNanos = new long[10];
    for (int i = 0; i < 10; i++) {
      long started = System.nanoTime();
      model.chat(UserMessage.from("q" + i));
      measuredNanos[i] = System.nanoTime() - started;
    }

    SplittableRandom replay = new SplittableRandom(Faults.latencySeed(5));
    List<Served> served = fake.served();
    assertThat(served).hasSize(10);
    for (int i = 0; i < 10; i++) {
      Duration recorded = served.get(i).delay();
      assertThat(recorded)
          .isEqualTo(uniform.sample(replay))
          .isBetween(Duration.ofMillis(20), Duration.ofMillis(60));
      assertThat(served.get(i).call().userMessage()).isEqualTo("q" + i);
      assertThat(measuredNanos[i])
          .as("call %d waited its scripted latency", i)
          .isGreaterThanOrEqualTo(recorded.toNanos());
    }
  }

  @Test
  void logNormalLatencyHasTheConfiguredMedianAndTail() {
    Latency shape = Latency.logNormal(Duration.ofMillis(50), Duration.ofMillis(500));
    SplittableRandom random = new SplittableRandom(11);
    long[] millis = new long[20_000];
    for (int i = 0; i < millis.length; i++) {
      millis[i] = shape.sample(random).toMillis();
    }
    Arrays.sort(millis);
    // seeded, so these are fixed numbers; the bounds document the shape
    assertThat(millis[millis.length / 2]).isBetween(47L, 53L);
    assertThat(millis[(int) (millis.length * 0.99)]).isBetween(440L, 570L);
    assertThat(
            Latency.logNormal(Duration.ofMillis(50), Duration.ofMillis(500))
                .cappedAt(Duration.ofMillis(100))
                .sample(new SplittableRandom(11)))
        .isLessThanOrEqualTo(Duration.ofMillis(100));

    // the same seed gives the same delays through Faults, with or without HTTP
    Faults a = Faults.seeded(9).latency(shape);
    Faults b = Faults.seeded(9).latency(shape);
    for (int i = 0; i < 50; i++) {
      assertThat(a.apply(call("x")).delay()).isEqualTo(b.apply(call("x")).delay());
    }
  }

  @Test
  void anOutageCanStartAndEndWhileServing() throws Exception {
    Faults faults = Faults.seeded(1);
    fake.script(faults);
    post("before");
    faults.outage(Reply.error(503));
    post("down 1");
    post("down 2");
    faults.outage(Reply.rateLimited(30));
    HttpResponse<String> limited = post("quota outage");
    faults.recover();
    post("after");
    fake.script(call -> Reply.error(500)); // or swap the whole script
    post("swapped");

    assertThat(statuses()).containsExactly(200, 503, 503, 429, 200, 500);
    assertThat(limited.headers().firstValue("Retry-After")).hasValue("30");
    assertThat(fake.statusCounts())
        .containsExactly(
            Map.entry(200, 2L), Map.entry(429, 1L), Map.entry(500, 1L), Map.entry(503, 2L));
  }

  @Test
  void callsAreCountedPerWindowFromTheirTimestamps() throws Exception {
    AtomicLong clock = new AtomicLong();
    fake.clock(clock::get);
    long[] arrivals = {
      0, 300_000_000L, 999_999_999L, 1_000_000_000L, 2_500_000_000L, 2_600_000_000L
    };
    for (long arrival : arrivals) {
      clock.set(arrival);
      post("at " + arrival);
    }
    assertThat(fake.served())
        .extracting(Served::receivedNanos)
        .containsExactly(
            0L, 300_000_000L, 999_999_999L, 1_000_000_000L, 2_500_000_000L, 2_600_000_000L);
    assertThat(fake.callsPerWindow(Duration.ofSeconds(1))).containsExactly(3, 1, 2);
    assertThat(fake.maxCallsInWindow(Duration.ofSeconds(1), status -> true)).isEqualTo(3);
    assertThat(fake.maxCallsInWindow(Duration.ofNanos(1), status -> true)).isEqualTo(1);
    assertThat(fake.maxCallsInWindow(Duration.ofMillis(1), status -> true))
        .isEqualTo(2); // 999_999_999 and 1e9
  }

  @Test
  void hangsAndMalformedRepliesMixIntoASeededScript() throws Exception {
    fake.script(Faults.seeded(21).hangs(0.1).fault(0.1, Reply.missingChoices()));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<CompletableFuture<Integer>> results = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        String question = "mix " + i;
        results.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return post(question).statusCode();
                  } catch (Exception e) {
                    return -1;
                  }
                },
                pool));
      }
      // every non-hanging call is answered; wait for those on recorded data, then close to end the
      // hangs
      SplittableRandom replay = new SplittableRandom(21);
      long hangs = 0;
      for (int i = 0; i < 40; i++) {
        if (replay.nextDouble() < 0.1) {
          hangs++;
        }
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (results.stream().filter(CompletableFuture::isDone).count() < 40 - hangs
          && System.nanoTime() < deadline) {
        LockSupport.parkNanos(1_000_000); // poll recorded data
      }
      assertThat(fake.count(FakeModelServer.NO_RESPONSE)).isEqualTo(hangs);
      assertThat(results.stream().filter(CompletableFuture::isDone).count()).isEqualTo(40 - hangs);
      fake.close();
      assertThat(
              results.stream().map(CompletableFuture::join).filter(status -> status == -1).count())
          .isEqualTo(hangs);
    } finally {
      pool.shutdownNow();
    }
  }
}
