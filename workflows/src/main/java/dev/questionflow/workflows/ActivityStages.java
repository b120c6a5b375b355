package dev.questionflow.workflows;

import java.util.List;
import java.util.Map;

/**
 * The activity types of each stage. Timeouts and retry policies are declared per stage in application.yml and
 * applied to these types through WorkflowImplementationOptions, so workflow code carries none of them.
 */
public final class ActivityStages {
  public static final Map<String, List<String>> ACTIVITY_TYPES =
      Map.of(
          "intent", List.of("ClassifyIntent"),
          "retrieval", List.of("RetrieveFaq"),
          "generation", List.of("GenerateAnswer"),
          "template", List.of("RenderFaqAnswer"),
          "ticket", List.of("OpenTicket", "CloseTicket"));

  private ActivityStages() {}
}
