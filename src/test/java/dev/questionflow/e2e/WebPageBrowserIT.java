package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Call;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chat page at {@code /} in a real browser (system Chromium through playwright-core,
 * e2e/browser/chat-page.mjs) against the packaged app, the dev server, Redis and a slow fake model
 * behind a model lane of 1 call/s: with a backlog of questions in the lane, the page must show the
 * question waiting, its queue position going down, and then the model's answer with its level.
 */
class WebPageBrowserIT {

  private static final int LANE_RATE = 1;
  private static final int BACKLOG = 15;
  private static final Duration MODEL_LATENCY = Duration.ofMillis(700);
  private static FakeModelServer model;
  private static AppProcess app;

  @BeforeAll
  static void start() throws Exception {
    Browser.checkInstalled(); // fail at once, with the install command, before starting anything
    model = FakeModelServer.start();
    model.script(call -> Reply.text("Answer to: " + call.userMessage()).after(MODEL_LATENCY));
    Map<String, String> env =
        FlowControlIT.laneEnv(Infra.uniqueTaskQueue("web"), model, LANE_RATE, 2);
    // the page's question waits behind the backlog for up to ~15 s; a slow machine must not push it
    // over the chain
    // budget (it would then be answered from the FAQ instead of by the model)
    env.put("CS_CHAIN_BUDGET", "60s");
    // and it waits for the model with a position (the subject here): with the default patience of
    // 10 s its customer would get the FAQ's answer at once instead
    env.put("PATIENCE_QUEUE", "60s");
    // and in one first-come line: with a front line the page's fresh question would be served
    // next, ahead of the backlog (DeadlineLadderIT tests that), and show no position going down
    env.put("CS_FLOWCONTROL_FRONTLINEWAIT", "0s");
    app = AppProcess.start("web-page", env);
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(app, model);
  }

  @Test
  void theChatPageShowsTheQueuePositionGoingDownAndThenTheModelsAnswer() throws Exception {
    // the page's own resources come from the app: nothing from a CDN (it must work offline)
    var page = app.get("/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body())
        .contains("data-testid=\"stage\"")
        .doesNotContainPattern("(src|href)=\"(https?:)?//");

    String run = UUID.randomUUID().toString().substring(0, 6);
    List<String> backlog = submitBacklog(run);
    // the backlog is entering the lane (served at 1/s) before the browser's question joins it
    // behind them; waiting for
    // only a third of it keeps the page's question well back in the line even when the browser is
    // slow to start
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> waiting(backlog) >= 5);
    int modelCallsBefore = model.calls().size();

    String question = "I still have not received my new card (web " + run + ")";
    Path screenshot = Browser.screenshotDir().resolve("chat-page-" + run + ".png");
    Browser.Result result =
        Browser.chatPage(
            app.uri("").toString(), question, screenshot, true, Duration.ofSeconds(90));

    assertThat(result.exitCode())
        .as("chat-page.mjs failed:%n%s%s", result.stderr(), result.stdout())
        .isZero();
    JsonNode seen = result.json();
    assertThat(seen.path("ok").asBoolean()).as("%s", seen).isTrue();
    assertThat(screenshot).isRegularFile();
    assertThat(Files.size(screenshot)).isGreaterThan(5_000);
    assertThat(
            new String(
                Files.readAllBytes(screenshot), 1, 3, java.nio.charset.StandardCharsets.US_ASCII))
        .isEqualTo("PNG");

    List<Integer> positions = new ArrayList<>();
    seen.path("positions").forEach(p -> positions.add(p.asInt()));
    List<String> stages = new ArrayList<>();
    seen.path("stages").forEach(s -> stages.add(s.asText()));
    System.out.printf(
        "[web] page showed positions %s, stages %s, answer after %.1f s: %s %s%n",
        positions,
        stages,
        seen.path("secondsToAnswer").asDouble(),
        seen.path("level").asText(),
        seen.path("answer").asText());

    // the question waited behind the backlog and the page followed its position down
    assertThat(positions).as("positions shown").hasSizeGreaterThanOrEqualTo(2);
    assertThat(positions.stream().distinct().count())
        .as("distinct positions in %s", positions)
        .isGreaterThanOrEqualTo(2);
    assertThat(positions.get(0)).as("first position shown").isPositive();
    assertThat(positions.stream().mapToInt(Integer::intValue).min().orElseThrow())
        .as("the position went down: %s", positions)
        .isLessThan(positions.get(0));
    assertThat(stages).contains("WAITING_IN_QUEUE").last().isEqualTo("ANSWERED");

    // what the page showed is the question's real state: the workflow it named, answered by the
    // model
    String workflowId = seen.path("workflowId").asText();
    // the page's question is its visitor's: a back end's key cannot read it, staff can
    JsonNode status = app.status(workflowId, app.credentialsFor("/api/v1/tickets"));
    assertThat(status.path("stage").asText()).isEqualTo("ANSWERED");
    assertThat(seen.path("level").asText())
        .isIn("RAG", "LLM")
        .isEqualTo(status.at("/answer/level").asText());
    assertThat(seen.path("answer").asText())
        .isEqualTo(status.at("/answer/text").asText())
        .contains(run);
    Call call =
        model.calls().stream()
            .filter(c -> question.equals(c.userMessage()))
            .findFirst()
            .orElseThrow();
    long servedBefore =
        model.calls().stream()
            .filter(c -> c.userMessage() != null && c.userMessage().contains("#backlog " + run))
            .filter(c -> c.receivedNanos() < call.receivedNanos())
            .count();
    assertThat(servedBefore)
        .as("backlog questions the model answered before the page's question")
        .isGreaterThanOrEqualTo(Math.max(1, positions.get(0)));
    assertThat(model.calls().size()).isGreaterThan(modelCallsBefore);
  }

  private static List<String> submitBacklog(String run) {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<CompletableFuture<String>> ids = new ArrayList<>();
      for (int i = 0; i < BACKLOG; i++) {
        int n = i;
        ids.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return FlowControlIT.ask(
                        app,
                        "web-backlog-" + run + "-" + n,
                        "m1",
                        "Where is my card? #backlog " + run + " " + n,
                        false);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                pool));
      }
      return ids.stream().map(CompletableFuture::join).toList();
    } finally {
      pool.shutdown();
    }
  }

  private static long waiting(List<String> workflowIds) throws Exception {
    long n = 0;
    for (String id : workflowIds) {
      if ("WAITING_IN_QUEUE".equals(app.status(id).path("stage").asText())) {
        n++;
      }
    }
    return n;
  }
}
