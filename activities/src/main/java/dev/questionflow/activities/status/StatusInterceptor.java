package dev.questionflow.activities.status;

import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import dev.questionflow.workflows.status.StatusBeacon;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.Workflow;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Publishes a question's status at each change a caller can see: after every search-attribute or
 * memo upsert of its workflow (the stage, the answer) and when it returns (the final answer) or
 * fails. The status is the workflow's own status query, named in its {@link StatusBeacon}; reading
 * it is a method call, so the question's history gets no event and no command (histories replay
 * unchanged). On replay nothing is published, but versions are taken, so a worker that takes over a
 * question continues its versions. Not guaranteed: a worker that dies between a workflow task and
 * its publication loses that one (the next change, a stream's silence check or Temporal tells it).
 * A run that continues as new (a hand-over) throws out of its method and publishes no final status:
 * its continuation publishes from then on.
 */
public final class StatusInterceptor extends WorkerInterceptorBase {

  private final Consumer<PublishedStatus> publisher;
  private final LongSupplier wallClock;

  /**
   * @param publisher must not block (it runs on the workflow thread)
   * @param wallClock the publication time ({@link System#currentTimeMillis} outside tests)
   */
  public StatusInterceptor(Consumer<PublishedStatus> publisher, LongSupplier wallClock) {
    this.publisher = publisher;
    this.wallClock = wallClock;
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public void init(WorkflowOutboundCallsInterceptor outbound) {
        super.init(
            new WorkflowOutboundCallsInterceptorBase(outbound) {
              @Override
              public void upsertTypedSearchAttributes(SearchAttributeUpdate<?>... updates) {
                super.upsertTypedSearchAttributes(updates);
                publish(StatusBeacon.current().status());
              }

              @Override
              public void upsertMemo(Map<String, Object> memo) {
                super.upsertMemo(memo);
                publish(StatusBeacon.current().status());
              }
            });
      }

      @Override
      public WorkflowOutput execute(WorkflowInput input) {
        WorkflowOutput output;
        try {
          output = super.execute(input);
        } catch (TemporalFailure e) {
          // the workflow fails (a continue-as-new or an evicted thread is no TemporalFailure)
          QuestionStatus last = StatusBeacon.current().status();
          if (last != null) {
            publish(
                new QuestionStatus(
                    last.workflowId(), Stage.FAILED, null, null, last.intent(), null));
          }
          throw e;
        }
        QuestionStatus last = StatusBeacon.current().status();
        if (last != null && output.getResult() instanceof Answer answer) {
          // as a status read shows a closed question: TICKETED stays, anything else is answered
          Stage closed = last.stage() == Stage.TICKETED ? Stage.TICKETED : Stage.ANSWERED;
          publish(new QuestionStatus(last.workflowId(), closed, null, null, last.intent(), answer));
        }
        return output;
      }
    };
  }

  private void publish(QuestionStatus status) {
    StatusBeacon beacon = StatusBeacon.current();
    QuestionStatus shown = outsideTheLine(status);
    if (!beacon.changed(shown)) {
      return;
    }
    long version = beacon.take(shown);
    if (!Workflow.isReplaying()) {
      publisher.accept(
          new PublishedStatus(shown.workflowId(), version, wallClock.getAsLong(), shown));
    }
  }

  /** The queue deadline only while in a model's line, as a status read shows it. */
  private static QuestionStatus outsideTheLine(QuestionStatus status) {
    if (status == null || status.stage() == Stage.WAITING_IN_QUEUE || status.deadline() == null) {
      return status;
    }
    return new QuestionStatus(
        status.workflowId(),
        status.stage(),
        status.queuePosition(),
        status.etaSeconds(),
        status.intent(),
        status.answer(),
        null,
        status.upgrading());
  }
}
