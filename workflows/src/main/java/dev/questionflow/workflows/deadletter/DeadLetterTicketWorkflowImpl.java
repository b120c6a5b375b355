package dev.questionflow.workflows.deadletter;

import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.question.QuestionPolicy.DeadLetterPolicy;
import dev.questionflow.workflows.ticket.TicketActivities;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * Redelivers until the helpdesk takes the ticket. Each round is one DeliverTicket activity (its own
 * short retry policy from application.yml) followed, on failure, by a durable timer (doubling up to
 * the policy's cap) that a {@code redrive} signal cuts short. The history grows by a handful of
 * events per round; after {@value #ROUNDS_PER_RUN} rounds the workflow continues as new to keep it
 * small.
 */
public class DeadLetterTicketWorkflowImpl implements DeadLetterTicketWorkflow {

  static final int ROUNDS_PER_RUN = 100;
  private static final Logger log = Workflow.getLogger(DeadLetterTicketWorkflowImpl.class);

  private final TicketActivities tickets = Workflow.newActivityStub(TicketActivities.class);

  private String ticketId;
  private boolean delivered;
  private int attempts;
  private String lastError;
  private long nextAttemptInSeconds;
  private boolean redriveRequested;

  @Override
  public DeadLetterStatus redeliver(DeadLetter deadLetter) {
    ticketId = deadLetter.ticketId();
    attempts = deadLetter.attempts();
    lastError = deadLetter.reason();
    DeadLetterPolicy policy =
        deadLetter.policy() == null ? DeadLetterPolicy.defaults() : deadLetter.policy();
    Workflow.upsertTypedSearchAttributes(SearchAttributes.STAGE.valueSet("DEAD_LETTER"));
    if (deadLetter.attempts() == 0) {
      // the alert: a counter for the dead-letter alert rule and one ERROR line (not repeated on
      // replay)
      Workflow.getMetricsScope().counter("cs_dead_letters_total").inc(1);
      log.error(
          "ticket {} of {} is a dead letter: {}",
          ticketId,
          deadLetter.questionWorkflowId(),
          lastError);
    }
    for (int round = 0; round < ROUNDS_PER_RUN; round++) {
      try {
        tickets.deliverTicket(ticketId);
        delivered = true;
        nextAttemptInSeconds = 0;
        Workflow.setCurrentDetails("ticket " + ticketId + " delivered to the helpdesk");
        Workflow.upsertTypedSearchAttributes(SearchAttributes.STAGE.valueSet("DELIVERED"));
        Workflow.getMetricsScope().counter("cs_dead_letters_redelivered_total").inc(1);
        log.info("dead-letter ticket {} delivered after {} failed attempts", ticketId, attempts);
        return status();
      } catch (ActivityFailure e) {
        attempts++;
        lastError = e.getCause() == null ? e.getMessage() : e.getCause().getMessage();
      }
      nextAttemptInSeconds = backoffSeconds(policy, attempts);
      // one line for a person in the Web UI (a query, no history event)
      Workflow.setCurrentDetails(
          "ticket "
              + ticketId
              + " not delivered after "
              + attempts
              + " attempts ("
              + lastError
              + "); next try in "
              + nextAttemptInSeconds
              + " s, or at once on the redrive signal");
      Workflow.await(Duration.ofSeconds(nextAttemptInSeconds), () -> redriveRequested);
      redriveRequested = false;
    }
    Workflow.continueAsNew(
        new DeadLetter(ticketId, deadLetter.questionWorkflowId(), lastError, attempts, policy));
    return status();
  }

  static long backoffSeconds(DeadLetterPolicy policy, int failures) {
    long wait = policy.initialBackoffSeconds();
    for (int i = 1; i < failures && wait < policy.maxBackoffSeconds(); i++) {
      wait *= 2;
    }
    return Math.max(1, Math.min(wait, policy.maxBackoffSeconds()));
  }

  @Override
  public void redrive() {
    redriveRequested = true;
  }

  @Override
  public DeadLetterStatus status() {
    return new DeadLetterStatus(ticketId, delivered, attempts, lastError, nextAttemptInSeconds);
  }
}
