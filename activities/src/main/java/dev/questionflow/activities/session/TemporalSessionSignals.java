package dev.questionflow.activities.session;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SessionSignals} through the Temporal client: {@code QuestionWorkflow.sessionTurnReady}.
 */
public class TemporalSessionSignals implements SessionSignals {

  /** The signal name of {@code QuestionWorkflow#sessionTurnReady}. */
  public static final String SIGNAL = "sessionTurnReady";

  private static final Logger log = LoggerFactory.getLogger(TemporalSessionSignals.class);

  private final Supplier<WorkflowClient> client;

  public TemporalSessionSignals(WorkflowClient client) {
    this(() -> client);
  }

  /**
   * @param client resolved at the first signal (the worker's activities may be built before the
   *     client)
   */
  public TemporalSessionSignals(Supplier<WorkflowClient> client) {
    this.client = Objects.requireNonNull(client);
  }

  @Override
  public void turnReady(String nextWorkflowId, String finishedWorkflowId) {
    try {
      client.get().newUntypedWorkflowStub(nextWorkflowId).signal(SIGNAL, finishedWorkflowId);
    } catch (WorkflowNotFoundException e) {
      // the next question is gone or already closed: nobody is waiting
      log.debug("session signal to {} not delivered: workflow not found or closed", nextWorkflowId);
    }
  }
}
