package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.activities.outcome.OutcomeFormats;
import dev.questionflow.activities.outcome.RedisOutcomeStream;
import dev.questionflow.workflows.outcome.QuestionRecord;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 30's outcome stream against the packaged app: one redacted record per finished question in
 * {@code cs:{outcomes}}, with the tokens the model reported for that question's calls, the same
 * totals (and their cost) on /actuator/prometheus, and {@code bin/outcomes export} writing the same
 * records out.
 */
class OutcomeStreamIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String MODEL = "fake-qwen";
  private static final double PROMPT_PRICE = 0.15;
  private static final double COMPLETION_PRICE = 0.60;
  private static final String ANSWER =
      "Your new card is on its way and should arrive within 3-5 working days.";

  /** A question, the words of it that must never show up in the stream, and its expected level. */
  private record Question(String text, List<String> distinctive, List<String> levels) {}

  private static final Question RAG =
      new Question("I still have not received my new card", List.of("received"), List.of("RAG"));
  private static final Question MODEL_LEVEL =
      new Question(
          "Where is the card you posted to me last week",
          List.of("posted", "week"),
          List.of("RAG", "LLM"));
  // the model refuses this one (400: not retried), so the FAQ answers it
  private static final Question FAQ =
      new Question(
          "My card has still not arrived, what now?",
          List.of("arrived", "what now"),
          List.of("FAQ"));

  private static FakeModelServer model;
  private static AppProcess app;
  private static RedisClient redisClient;
  private static StatefulRedisConnection<String, String> redis;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.script(call -> mentions(call.body(), FAQ.text()) ? Reply.error(400) : Reply.text(ANSWER));
    // a model name with a dash cannot be a map key in an environment variable's name
    String prices =
        JSON.writeValueAsString(
            Map.of(
                "cs",
                Map.of(
                    "outcomes",
                    Map.of(
                        "prices",
                        Map.of(
                            MODEL,
                            Map.of(
                                "prompt-per-million",
                                PROMPT_PRICE,
                                "completion-per-million",
                                COMPLETION_PRICE))))));
    app =
        AppProcess.start(
            "outcome-stream",
            Map.of(
                "TASK_QUEUE",
                Infra.uniqueTaskQueue("outcomes"),
                "LLM_BASE_URL",
                model.baseUrl(),
                "LLM_API_KEY",
                "test-key",
                "LLM_MODEL",
                MODEL,
                "SPRING_APPLICATION_JSON",
                prices));
    redisClient = RedisClient.create(Infra.redisUrl());
    redis = redisClient.connect();
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(
        app, model, redis, redisClient == null ? null : (AutoCloseable) redisClient::shutdown);
  }

  @Test
  void eachFinishedQuestionHasOneRedactedRecordWithItsTokensInTheStreamMetricsAndExport()
      throws Exception {
    String batch = "outcomes-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, Question> questions = new LinkedHashMap<>();
    int n = 0;
    for (Question question : List.of(RAG, MODEL_LEVEL, FAQ)) {
      String workflowId =
          app.ask(batch + "-" + n++, "m1", question.text()).get("workflowId").asText();
      questions.put(workflowId, question);
    }
    for (Map.Entry<String, Question> q : questions.entrySet()) {
      JsonNode answered = app.awaitStage(q.getKey(), "ANSWERED", Duration.ofSeconds(60));
      assertThat(answered.at("/answer/level").asText())
          .as("%s: %s", q.getValue().text(), answered)
          .isIn(q.getValue().levels());
    }

    // the writer is asynchronous: the records follow the answers
    Map<String, List<JsonNode>> records = new LinkedHashMap<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              records.clear();
              records.putAll(recordsOf(questions.keySet()));
              assertThat(records.values()).allSatisfy(list -> assertThat(list).isNotEmpty());
            });

    long promptTotal = 0;
    long completionTotal = 0;
    for (Map.Entry<String, Question> q : questions.entrySet()) {
      Question question = q.getValue();
      List<JsonNode> mine = records.get(q.getKey());
      assertThat(mine).as("records of %s", q.getKey()).hasSize(1);
      JsonNode record = mine.get(0);
      assertThat(record.path("workflowId").asText()).isEqualTo(q.getKey());
      assertThat(record.path("caller").asText()).isEqualTo("e2e-backend");
      assertThat(record.path("stage").asText()).isEqualTo("ANSWERED");
      assertThat(record.path("level").asText()).isIn(question.levels());
      // what the model reported for this question's answered calls
      int prompt = 0;
      int completion = 0;
      int answeredCalls = 0;
      for (FakeModelServer.Served served : model.served()) {
        if (served.status() == 200 && mentions(served.call().body(), question.text())) {
          prompt += FakeModelServer.promptTokens(served.call().body());
          completion += FakeModelServer.completionTokens(ANSWER);
          answeredCalls++;
        }
      }
      if (question == FAQ) {
        assertThat(answeredCalls).isZero();
        assertThat(record.path("promptTokens").isNull()).as("%s", record).isTrue();
        assertThat(record.path("completionTokens").isNull()).as("%s", record).isTrue();
        assertThat(record.path("model").isNull()).as("%s", record).isTrue();
        assertThat(record.path("cost").isNull()).as("%s", record).isTrue();
      } else {
        assertThat(answeredCalls).as("model calls of %s", question.text()).isPositive();
        assertThat(record.path("model").asText()).isEqualTo(MODEL);
        assertThat(record.path("promptTokens").asInt()).as("%s", record).isEqualTo(prompt);
        assertThat(record.path("completionTokens").asInt()).as("%s", record).isEqualTo(completion);
        double questionCost = (prompt * PROMPT_PRICE + completion * COMPLETION_PRICE) / 1_000_000d;
        assertThat(record.path("cost").asDouble())
            .as("%s", record)
            .isCloseTo(questionCost, within(questionCost * 1e-9));
        promptTotal += prompt;
        completionTotal += completion;
      }
    }

    // no customer text in any field of any entry (other tests' entries included); the distinctive
    // words are looked for outside intent and faqId, which name the pack's entries (an intent such
    // as wrong_amount_of_cash_received is no customer's text)
    for (StreamMessage<String, String> entry : streamEntries()) {
      for (String value : entry.getBody().values()) {
        String lower = value.toLowerCase();
        String free = withoutEntryNames(value).toLowerCase();
        for (Question question : questions.values()) {
          assertThat(lower).doesNotContain(question.text().toLowerCase());
          for (String word : question.distinctive()) {
            assertThat(free).as("entry %s", entry.getId()).doesNotContain(word);
          }
        }
      }
    }

    Map<String, Double> series = modelSeries();
    assertThat(series.get("cs_model_tokens_total|prompt")).isEqualTo((double) promptTotal);
    assertThat(series.get("cs_model_tokens_total|completion")).isEqualTo((double) completionTotal);
    double cost = (promptTotal * PROMPT_PRICE + completionTotal * COMPLETION_PRICE) / 1_000_000d;
    assertThat(cost).isPositive();
    assertThat(series.get("cs_model_cost_total|")).isCloseTo(cost, within(cost * 1e-9));

    List<String> jsonl = export("jsonl", records.keySet());
    for (Map.Entry<String, List<JsonNode>> mine : records.entrySet()) {
      List<JsonNode> lines = new ArrayList<>();
      for (String line : jsonl) {
        JsonNode row = JSON.readTree(line);
        if (row.path("workflowId").asText().equals(mine.getKey())) {
          lines.add(row);
        }
      }
      assertThat(lines)
          .as("jsonl lines of %s", mine.getKey())
          .containsExactly(mine.getValue().get(0));
    }

    List<String> csv = export("csv", records.keySet());
    assertThat(csv.get(0)).isEqualTo(String.join(",", OutcomeFormats.CSV_COLUMNS));
    for (Map.Entry<String, List<JsonNode>> mine : records.entrySet()) {
      // the row the export's format makes of the record in the stream (reasons may hold commas)
      StringWriter expected = new StringWriter();
      OutcomeFormats.write(
          "csv", List.of(JSON.treeToValue(mine.getValue().get(0), QuestionRecord.class)), expected);
      String row = expected.toString().lines().skip(1).findFirst().orElseThrow();
      assertThat(row).contains(mine.getValue().get(0).path("level").asText());
      assertThat(csv.stream().filter(line -> line.startsWith(mine.getKey() + ",")))
          .as("csv rows of %s", mine.getKey())
          .containsExactly(row);
    }
  }

  /** Whether any message of a chat-completions request holds the text. */
  private static boolean mentions(JsonNode body, String text) {
    for (JsonNode message : body.path("messages")) {
      if (message.path("content").asText("").contains(text)) {
        return true;
      }
    }
    return false;
  }

  private static List<StreamMessage<String, String>> streamEntries() {
    return redis.sync().xrange(RedisOutcomeStream.KEY, Range.create("-", "+"));
  }

  /** The records in the stream per workflow ID (every one, duplicates included). */
  private static Map<String, List<JsonNode>> recordsOf(Iterable<String> workflowIds)
      throws Exception {
    Map<String, List<JsonNode>> records = new LinkedHashMap<>();
    workflowIds.forEach(id -> records.put(id, new ArrayList<>()));
    for (StreamMessage<String, String> entry : streamEntries()) {
      JsonNode record = JSON.readTree(entry.getBody().get("record"));
      List<JsonNode> list = records.get(record.path("workflowId").asText());
      if (list != null) {
        list.add(record);
      }
    }
    return records;
  }

  /** The model's series on /actuator/prometheus, keyed by name and kind label ("" for the cost). */
  private static Map<String, Double> modelSeries() throws Exception {
    Map<String, Double> series = new LinkedHashMap<>();
    Matcher m =
        Pattern.compile("(?m)^(cs_model_(?:tokens|cost)_total)\\{([^}]*)} ([0-9.eE+-]+)$")
            .matcher(app.get("/actuator/prometheus").body());
    while (m.find()) {
      if (!m.group(2).contains("model=\"" + MODEL + "\"")) {
        continue;
      }
      Matcher kind = Pattern.compile("kind=\"([a-z]+)\"").matcher(m.group(2));
      series.put(
          m.group(1) + "|" + (kind.find() ? kind.group(1) : ""), Double.parseDouble(m.group(3)));
    }
    return series;
  }

  /** bin/outcomes export against the tests' Redis, from the jar the tests run; its stdout lines. */
  private static List<String> export(String format, Set<String> workflowIds) throws Exception {
    Path err = Files.createTempFile(Infra.workDir(), "outcomes-" + format, ".err");
    ProcessBuilder builder =
        new ProcessBuilder(
                "bash",
                Infra.repoRoot().resolve("bin/outcomes").toString(),
                "export",
                "--since",
                "1h",
                "--format",
                format)
            .redirectError(err.toFile());
    Map<String, String> env = builder.environment();
    env.put("REDIS_URL", Infra.redisUrl());
    env.put("OUTCOMES_NO_BUILD", "1");
    env.put(
        "OUTCOMES_JAR",
        Path.of(System.getProperty("app.jar", "api/target/questionflow-exec.jar"))
            .toAbsolutePath()
            .toString());
    // this JVM's java first on the PATH, as the apps under test run on it
    env.put(
        "PATH",
        Path.of(System.getProperty("java.home"), "bin") + ":" + env.getOrDefault("PATH", ""));
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("bin/outcomes: %s", Files.readString(err)).isZero();
    // its log lines: warnings only, no stack trace (e.g. a logging setup the JVM refused)
    assertThat(Files.readString(err)).doesNotContain("Exception").doesNotContain("Failed");
    List<String> lines = out.lines().toList();
    // the header and this test's lines (the tests' Redis keeps other runs' records)
    lines.stream()
        .filter(
            line -> line.startsWith("workflowId,") || workflowIds.stream().anyMatch(line::contains))
        .forEach(line -> System.out.println("[outcomes] " + line));
    System.out.println(
        "[outcomes] ("
            + lines.size()
            + " line(s) of "
            + format
            + "; "
            + Files.readString(err).strip()
            + ")");
    return lines;
  }

  /** A record's JSON without intent and faqId (the pack's names); any other value as it is. */
  private static String withoutEntryNames(String value) {
    try {
      JsonNode fields = JSON.readTree(value);
      return fields instanceof ObjectNode object
          ? object.deepCopy().without(List.of("intent", "faqId")).toString()
          : value;
    } catch (JsonProcessingException notJson) {
      return value;
    }
  }
}
