package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Questions asked at a steady pace, each in a session of its own (so their session keys spread over
 * a cluster's slots): every fourth one outside the FAQ and refused by the model, so it ends as a
 * ticket; then the checks that none was lost or answered twice.
 */
final class QuestionStorm {

  static final String TICKET_TEXT = "Can you recommend a good pizza place near the harbour?";
  static final String ANSWER_TEXT = "I still have not received my new card";

  /** A question's final state. */
  record Outcome(String workflowId, String stage, String level, String ticketId) {}

  private final AppProcess app;
  private final String batch = "storm-" + UUID.randomUUID().toString().substring(0, 8);
  private final Map<Integer, String> accepted = new ConcurrentHashMap<>();
  private final AtomicInteger refused = new AtomicInteger();
  private final List<String> refusals = new ArrayList<>();
  private int asked;
  private int stormSize;

  QuestionStorm(AppProcess app) {
    this.app = app;
  }

  String batch() {
    return batch;
  }

  /**
   * Asks {@code count} questions, one every {@code every}, each on a thread of its own so a slow
   * POST does not hold the pace back; {@code atIndex} runs once that question was sent.
   */
  void run(int count, Duration every, int atIndex, Runnable at) throws InterruptedException {
    ScheduledExecutorService pool = Executors.newScheduledThreadPool(8);
    for (int i = 0; i < count; i++) {
      int n = i;
      pool.schedule(() -> ask(n), every.toMillis() * i, TimeUnit.MILLISECONDS);
    }
    pool.schedule(at, every.toMillis() * atIndex + 1, TimeUnit.MILLISECONDS);
    pool.shutdown();
    assertThat(pool.awaitTermination(5, TimeUnit.MINUTES)).as("the storm ended").isTrue();
    asked = count;
    stormSize = count;
  }

  /**
   * After the storm, one question (answered, not ticketed) every {@code every} until {@code enough}
   * or {@code atMost}: traffic for the stores to come back to Redis with.
   */
  void trickle(Duration every, java.util.function.BooleanSupplier enough, Duration atMost)
      throws InterruptedException {
    long end = System.nanoTime() + atMost.toNanos();
    while (!enough.getAsBoolean() && System.nanoTime() < end) {
      ask(asked++);
      Thread.sleep(every.toMillis());
    }
  }

  private void ask(int n) {
    String text = expectsTicket(n) ? TICKET_TEXT : ANSWER_TEXT;
    try {
      accepted.put(n, app.ask(batch + "-" + n, "m1", text + " #" + n).get("workflowId").asText());
    } catch (Exception | AssertionError e) {
      refused.incrementAndGet();
      synchronized (refusals) {
        refusals.add(n + ": " + e.getMessage());
      }
    }
  }

  int asked() {
    return asked;
  }

  int refused() {
    return refused.get();
  }

  List<String> refusals() {
    synchronized (refusals) {
      return List.copyOf(refusals);
    }
  }

  Map<Integer, String> accepted() {
    return new TreeMap<>(accepted);
  }

  /** Every fourth question of the storm; none of the trickle after it. */
  boolean expectsTicket(int n) {
    return (stormSize == 0 || n < stormSize) && n % 4 == 3;
  }

  /** Waits until every accepted question is ANSWERED or TICKETED (none lost), and returns them. */
  Map<Integer, Outcome> settle(Duration atMost) {
    Map<Integer, Outcome> done = new ConcurrentHashMap<>();
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              for (Map.Entry<Integer, String> q : accepted.entrySet()) {
                if (done.containsKey(q.getKey())) {
                  continue;
                }
                JsonNode status = app.status(q.getValue());
                String stage = status.path("stage").asText();
                if (stage.equals("ANSWERED") || stage.equals("TICKETED")) {
                  done.put(
                      q.getKey(),
                      new Outcome(
                          q.getValue(),
                          stage,
                          status.at("/answer/level").asText(),
                          status.at("/answer/ticketId").asText(null)));
                }
              }
              Set<Integer> open = new java.util.TreeSet<>(accepted.keySet());
              open.removeAll(done.keySet());
              assertThat(open).as("questions without a final answer yet").isEmpty();
            });
    return new TreeMap<>(done);
  }

  /**
   * What the histories say: questions answered more than once (a second completion, model answer or
   * ticket, or a second run of a question's workflow), and the tickets' attempts (a ticket write
   * that no replica acknowledged is retried) with when the last ticket was written.
   */
  record Histories(List<String> duplicates, int ticketsRetried, long lastTicketWrittenAt) {}

  Histories histories(WorkflowClient temporal, Map<Integer, Outcome> outcomes) throws Exception {
    List<String> duplicates = new ArrayList<>();
    int ticketsRetried = 0;
    long lastTicketWrittenAt = 0;
    for (Outcome outcome : outcomes.values()) {
      List<HistoryEvent> events = Infra.questionRun(temporal, outcome.workflowId()).getEvents();
      Map<Long, String> scheduled = new HashMap<>();
      Map<String, Integer> completed = new HashMap<>();
      int completions = 0;
      for (HistoryEvent e : events) {
        if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
          scheduled.put(
              e.getEventId(),
              e.getActivityTaskScheduledEventAttributes().getActivityType().getName());
        } else if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
          String type =
              scheduled.get(e.getActivityTaskCompletedEventAttributes().getScheduledEventId());
          completed.merge(type, 1, Integer::sum);
          if ("OpenTicket".equals(type)) {
            lastTicketWrittenAt =
                Math.max(
                    lastTicketWrittenAt,
                    e.getEventTime().getSeconds() * 1000 + e.getEventTime().getNanos() / 1_000_000);
          }
        } else if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
            && "OpenTicket"
                .equals(
                    scheduled.get(e.getActivityTaskStartedEventAttributes().getScheduledEventId()))
            && e.getActivityTaskStartedEventAttributes().getAttempt() > 1) {
          ticketsRetried++;
        } else if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) {
          completions++;
        }
      }
      if (completions > 1
          || completed.getOrDefault("GenerateAnswer", 0) > 1
          || completed.getOrDefault("OpenTicket", 0) > 1
          || (outcome.stage().equals("TICKETED") && completed.getOrDefault("OpenTicket", 0) != 1)) {
        duplicates.add(outcome.workflowId() + " " + completed + ", completions " + completions);
      }
    }
    // workflow IDs come from the question (Temporal refuses a second start of one): a question
    // asked twice shows as a second question run of its ID, or as a workflow beyond those accepted
    // (a handed-over question's wait for a person is a run of another type)
    List<JsonNode> workflows =
        Infra.temporalJsonList(
            "workflow",
            "list",
            "--query",
            "SessionId STARTS_WITH '" + batch + "-' AND WorkflowType = 'QuestionWorkflow'");
    Map<String, Long> runs =
        workflows.stream()
            .collect(
                Collectors.groupingBy(
                    w -> w.at("/execution/workflowId").asText(), Collectors.counting()));
    runs.forEach(
        (id, n) -> {
          if (n > 1) {
            duplicates.add(id + ": " + n + " runs");
          }
        });
    if (runs.size() > outcomes.size()) {
      duplicates.add((runs.size() - outcomes.size()) + " workflows beyond the questions accepted");
    }
    return new Histories(duplicates, ticketsRetried, lastTicketWrittenAt);
  }

  /**
   * The TICKETED questions' workflows as Temporal's visibility lists them: those waiting for a
   * person (the question's own run, continued as new into that wait, says TICKETED too).
   */
  List<String> ticketedWorkflows() throws Exception {
    return Infra.temporalJsonList(
            "workflow",
            "list",
            "--query",
            "SessionId STARTS_WITH '"
                + batch
                + "-' AND Stage = 'TICKETED' AND ExecutionStatus = 'Running'")
        .stream()
        .map(w -> w.at("/execution/workflowId").asText())
        .toList();
  }

  /** Ends the ticketed questions' workflows (they wait hours for a staff reply). */
  void terminateTicketed(WorkflowClient temporal, Map<Integer, Outcome> outcomes) {
    for (Outcome outcome : outcomes.values()) {
      if (outcome.stage().equals("TICKETED")) {
        try {
          temporal.newUntypedWorkflowStub(outcome.workflowId()).terminate("RedisFailoverIT over");
        } catch (RuntimeException ignored) {
          // already closed
        }
      }
    }
  }
}
