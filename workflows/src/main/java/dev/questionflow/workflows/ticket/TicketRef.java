package dev.questionflow.workflows.ticket;

public record TicketRef(String ticketId, boolean deliveredToHelpdesk) {

  /** Derived from the workflow ID so that opening a ticket twice yields one ticket. */
  public static String idFor(String workflowId) {
    return "T-" + (workflowId.startsWith("q-") ? workflowId.substring(2) : workflowId);
  }
}
