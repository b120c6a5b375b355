package dev.questionflow.workflows.ticket;

import java.util.List;

/**
 * Everything a person needs to answer without asking the customer again.
 *
 * @param caller the caller that asked (with userId and sessionId it names the session whose turns
 *     staff see)
 */
public record TicketRequest(
    String workflowId,
    String sessionId,
    String userId,
    String question,
    String intent,
    int priority,
    List<String> candidateFaqIds,
    String reason,
    String caller) {}
