package dev.questionflow.workflows;

import java.util.List;
import java.util.Map;

/**
 * The activity types of each stage. Timeouts and retry policies are declared per stage in application.yml and
 * applied to these types through WorkflowImplementationOptions, so workflow code carries none of them.
 */
public final class ActivityStages {

  /** Stages of the question workflow. */
  public static final Map<String, List<String>> ACTIVITY_TYPES =
      Map.of(
          "intent", List.of("ClassifyIntent"),
          "retrieval", List.of("RetrieveFaq"),
          "generation", List.of("GenerateAnswer"),
          "template", List.of("RenderFaqAnswer"),
          "ticket", List.of("OpenTicket", "MarkTicketUndelivered", "CloseTicket"),
          "ticket-delivery", List.of("DeliverTicket"));

  /** Stages of the dead-letter workflow: the same DeliverTicket activity with its own (per-round) policy. */
  public static final Map<String, List<String>> DEAD_LETTER_ACTIVITY_TYPES =
      Map.of("dead-letter-delivery", List.of("DeliverTicket"), "ticket", List.of("MarkTicketUndelivered"));

  private ActivityStages() {}
}
