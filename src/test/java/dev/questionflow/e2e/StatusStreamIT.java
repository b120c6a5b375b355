package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.e2e.JavaProcesses.FakeModel;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Status streams fed by published changes, on the dev server and Redis: one app instance of role
 * {@code worker} runs the workflows and publishes their changes, one of role {@code api} takes the
 * questions and serves the streams (so every change a stream gets crossed instances through Redis).
 * A line forms in a slow lane (1 call/s, the fake model in its own process answering in 1.5 s); the
 * last question's stream must show its place moving up, then its answer, each event of a published
 * change carrying its publication time, while the api instance's Temporal reads stay within 3 per
 * question.
 */
class StatusStreamIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int QUESTIONS = 10;
  private static final Pattern PUBLISHED = Pattern.compile("^: ?published (\\d+)");

  private static FakeModel model;
  private static AppProcess api;
  private static AppProcess worker;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModel.start("status-stream-model", "--latency-ms", "1500");
    Map<String, String> env =
        FlowControlIT.laneEnv(Infra.uniqueTaskQueue("status-stream"), model.baseUrl(), 1, 1);
    // every question waits for the model, however long the line
    env.put("CS_FLOWCONTROL_MAXQUEUEWAIT", "120s");
    env.put("PATIENCE_QUEUE", "120s");
    env.put("LLM_TIMEOUT", "30s");
    Map<String, String> apiEnv = new LinkedHashMap<>(env);
    apiEnv.put("CS_ROLE", "api");
    Map<String, String> workerEnv = new LinkedHashMap<>(env);
    workerEnv.put("CS_ROLE", "worker");
    var apiStarting = AppProcess.starting("status-stream-api", apiEnv, AppProcess.TEST_JVM);
    var workerStarting =
        AppProcess.starting("status-stream-worker", workerEnv, AppProcess.TEST_JVM);
    api = apiStarting.join();
    worker = workerStarting.join();
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(api, worker, model);
  }

  /** One event: its name, its data, and the publication time its comment line gave, if any. */
  record Event(String name, JsonNode data, Long publishedAtMillis) {}

  /** Reads the question's stream on the api instance until the server ends it. */
  private static CompletableFuture<List<Event>> stream(String workflowId) {
    HttpRequest request =
        HttpRequest.newBuilder(api.uri("/api/v1/questions/" + workflowId + "/events"))
            .timeout(Duration.ofMinutes(3))
            .header("Accept", "text/event-stream")
            .header("Authorization", api.credentialsFor("/api/v1/questions"))
            .build();
    return HttpClient.newHttpClient()
        .sendAsync(request, HttpResponse.BodyHandlers.ofLines())
        .thenApply(
            response -> {
              assertThat(response.statusCode()).isEqualTo(200);
              List<Event> events = new ArrayList<>();
              String name = null;
              Long published = null;
              for (String line : (Iterable<String>) response.body()::iterator) {
                Matcher m = PUBLISHED.matcher(line);
                if (m.find()) {
                  published = Long.parseLong(m.group(1));
                } else if (line.startsWith("event:")) {
                  name = line.substring(6).strip();
                } else if (line.startsWith("data:")) {
                  try {
                    events.add(new Event(name, JSON.readTree(line.substring(5)), published));
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                } else if (line.isEmpty()) {
                  name = null;
                  published = null;
                }
              }
              return events;
            });
  }

  private static double temporalReads() throws Exception {
    double sum = 0;
    for (String method : List.of("describe", "history", "query")) {
      sum += api.metric("cs_temporal_reads_total", "method=\"" + method + "\"");
    }
    return sum;
  }

  @Test
  void streamsOnTheApiInstanceGetEachChangeTheWorkerPublishedWithinTheReadBudget()
      throws Exception {
    double readsBefore = temporalReads();
    String run = UUID.randomUUID().toString().substring(0, 6);
    // asked at once, each watched from its 202 on: the later ones wait behind the earlier
    List<CompletableFuture<List<Event>>> streams = new ArrayList<>();
    var askers = java.util.concurrent.Executors.newFixedThreadPool(QUESTIONS);
    try {
      List<CompletableFuture<CompletableFuture<List<Event>>>> asked = new ArrayList<>();
      for (int i = 0; i < QUESTIONS; i++) {
        int n = i;
        asked.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return stream(
                        FlowControlIT.ask(
                            api,
                            "stream-" + run + "-" + n,
                            "m1",
                            "Where is my card? #" + n,
                            false));
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                askers));
      }
      for (var a : asked) {
        streams.add(a.get(1, TimeUnit.MINUTES));
      }
    } finally {
      askers.shutdown();
    }

    int longestClimb = 0;
    for (CompletableFuture<List<Event>> stream : streams) {
      List<Event> events = stream.get(3, TimeUnit.MINUTES);
      List<Event> statuses = events.stream().filter(e -> "status".equals(e.name())).toList();
      Event answered = statuses.get(statuses.size() - 1);
      assertThat(answered.data().path("stage").asText()).as("%s", statuses).isEqualTo("ANSWERED");
      assertThat(answered.data().path("answer").path("text").asText()).isNotBlank();
      assertThat(events.get(events.size() - 1).name()).isEqualTo("answer");
      // crossed from the worker's publication to this instance's stream, not read by a poll
      assertThat(answered.publishedAtMillis())
          .as("the answer's publication time (%s)", statuses)
          .isNotNull();
      List<Integer> positions =
          statuses.stream()
              .filter(e -> e.data().path("queuePosition").isNumber())
              .map(e -> e.data().path("queuePosition").asInt())
              .toList();
      assertThat(positions)
          .as("a place only moves up (%s)", statuses)
          .isSortedAccordingTo((a, b) -> Integer.compare(b, a));
      if (!positions.isEmpty()) {
        longestClimb = Math.max(longestClimb, positions.size());
      }
    }
    assertThat(longestClimb)
        .as("places shown to the question that waited longest, one per call ahead of it")
        .isGreaterThanOrEqualTo(3);
    assertThat(api.metric("cs_status_reads_total", "source=\"query\"")).isZero();

    double reads = temporalReads() - readsBefore;
    assertThat(reads)
        .as("Temporal reads of the api instance for %d questions and their streams", QUESTIONS)
        .isLessThanOrEqualTo(3.0 * QUESTIONS);
  }
}
