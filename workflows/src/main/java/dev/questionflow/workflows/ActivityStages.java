package dev.questionflow.workflows;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The activity types of each stage. Timeouts and retry policies are declared per stage in
 * application.yml and applied to these types through WorkflowImplementationOptions, so workflow
 * code carries none of them.
 */
public final class ActivityStages {

  /** Activities of the question workflow that leave the process: the model and the people side. */
  public static final Map<String, List<String>> ACTIVITY_TYPES =
      Map.of(
          "generation", List.of("GenerateAnswer"),
          "ticket", List.of("OpenTicket", "MarkTicketUndelivered", "CloseTicket"),
          "ticket-delivery", List.of("DeliverTicket"),
          // scheduled with the lane call, so the ledger's order is the server's
          // (QuestionWorkflowImpl)
          "lane-entry", List.of("EnterLane"));

  /**
   * Local activities of the question workflow: short steps that run in the worker's own process
   * (the FAQ matchers, templates) or are one Redis round trip (session line, lane ledger). Each is
   * one marker event in the history instead of three events and a workflow task, which is what lets
   * the Temporal server feed the model lanes at their quota on a small machine; timeouts and
   * retries are still declared per stage in application.yml.
   */
  public static final Map<String, List<String>> LOCAL_ACTIVITY_TYPES =
      Map.of(
          "intent", List.of("ClassifyIntent"),
          "retrieval", List.of("RetrieveFaq"),
          "template", List.of("RenderFaqAnswer"),
          "session", List.of("JoinSession", "FinishSessionTurn"),
          "lane", List.of("EnterLane", "LaneSnapshot", "Admission", "Place", "LeaveLane"));

  /**
   * Stages of the dead-letter workflow: the same DeliverTicket activity with its own (per-round)
   * policy.
   */
  public static final Map<String, List<String>> DEAD_LETTER_ACTIVITY_TYPES =
      Map.of(
          "dead-letter-delivery",
          List.of("DeliverTicket"),
          "ticket",
          List.of("MarkTicketUndelivered"));

  /**
   * Stages of the answer callback workflow (on the tickets queue): a delivery round's attempts,
   * with their own retry policy.
   */
  public static final Map<String, List<String>> CALLBACK_ACTIVITY_TYPES =
      Map.of("callback-delivery", List.of("DeliverCallback"));

  private ActivityStages() {}

  /** The same options for every activity type of {@code typesByStage} (replay, tests). */
  public static <T> Map<String, T> sameForEveryType(
      Map<String, List<String>> typesByStage, T options) {
    Map<String, T> byType = new HashMap<>();
    typesByStage.values().forEach(types -> types.forEach(type -> byType.put(type, options)));
    return byType;
  }
}
