package dev.questionflow.workflows.callback;

import dev.questionflow.workflows.SearchAttributes;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * A round is one DeliverCallback activity with its retry policy from application.yml ({@code
 * cs.activities.callback-delivery}); a failed round makes the callback a dead letter, which waits
 * for a redrive signal (each starts another round) until its hold is over.
 */
public class AnswerCallbackWorkflowImpl implements AnswerCallbackWorkflow {

  private static final Logger log = Workflow.getLogger(AnswerCallbackWorkflowImpl.class);

  private final CallbackActivities callbacks = Workflow.newActivityStub(CallbackActivities.class);

  private String webhookId;
  private boolean delivered;
  private boolean deadLettered;
  private int rounds;
  private String lastError;
  private boolean redriveRequested;

  @Override
  public CallbackStatus deliver(CallbackMessage message) {
    webhookId = message.webhookId();
    long holdUntil = 0; // from its first failed round: the hold is the dead letter's
    while (true) {
      try {
        callbacks.deliverCallback(message);
        delivered = true;
        if (deadLettered) {
          Workflow.upsertTypedSearchAttributes(SearchAttributes.STAGE.valueSet("DELIVERED"));
          log.info("dead-letter callback {} delivered after a redrive", webhookId);
        }
        return status();
      } catch (ActivityFailure e) {
        rounds++;
        lastError =
            e.getCause() instanceof ApplicationFailure failure
                ? failure.getOriginalMessage() + " (" + failure.getType() + ")"
                : e.getCause() == null ? e.getMessage() : e.getCause().getMessage();
      }
      if (!deadLettered) {
        deadLettered = true;
        holdUntil = Workflow.currentTimeMillis() + message.target().deadLetterHoldSeconds() * 1000;
        // the alert: a counter and one ERROR line (neither repeated on replay)
        Workflow.getMetricsScope().counter("cs_callbacks_dead_lettered_total").inc(1);
        Workflow.upsertTypedSearchAttributes(SearchAttributes.STAGE.valueSet("DEAD_LETTER"));
        log.error(
            "callback {} ({}) to {} is a dead letter: {}",
            webhookId,
            message.type(),
            origin(message.target().url()),
            lastError);
      }
      long left = holdUntil - Workflow.currentTimeMillis();
      Workflow.setCurrentDetails(
          "callback "
              + webhookId
              + " not delivered ("
              + lastError
              + "); waiting for the redrive signal for "
              + Math.max(0, left / 1000)
              + " s");
      if (left <= 0 || !Workflow.await(Duration.ofMillis(left), () -> redriveRequested)) {
        log.warn("callback {} given up undelivered at the end of its hold", webhookId);
        return status();
      }
      redriveRequested = false;
    }
  }

  /** Scheme, host and port only: a path or query may hold a token of the receiver's. */
  static String origin(String url) {
    try {
      java.net.URI uri = java.net.URI.create(url);
      return uri.getScheme()
          + "://"
          + uri.getHost()
          + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
    } catch (IllegalArgumentException e) {
      return "(malformed URL)";
    }
  }

  @Override
  public void redrive() {
    redriveRequested = true;
  }

  @Override
  public CallbackStatus status() {
    return new CallbackStatus(webhookId, delivered, deadLettered, rounds, lastError);
  }
}
