package dev.questionflow.workflows.replay;

import dev.questionflow.workflows.ActivityStages;
import dev.questionflow.workflows.callback.AnswerCallbackWorkflowImpl;
import dev.questionflow.workflows.deadletter.DeadLetterTicketWorkflowImpl;
import dev.questionflow.workflows.question.QuestionWorkflowImpl;
import dev.questionflow.workflows.question.TicketReplyWorkflowImpl;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.GlobalDataConverter;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.NonDeterministicException;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkflowImplementationOptions;
import java.time.Duration;
import java.util.List;

/**
 * Replays a recorded workflow history against workflow code, the way a worker does after a restart:
 * the code must issue the same commands in the same order, or the SDK reports non-determinism. Used
 * by {@code bin/replay} and by the build's golden-history test. Needs no server.
 */
public final class HistoryReplay {

  /** Every workflow implementation the app registers. */
  public static final List<Class<?>> CURRENT_WORKFLOWS =
      List.of(
          QuestionWorkflowImpl.class,
          TicketReplyWorkflowImpl.class,
          DeadLetterTicketWorkflowImpl.class,
          AnswerCallbackWorkflowImpl.class);

  private static final ActivityOptions ANY_ACTIVITY =
      ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofMinutes(1)).build();
  private static final LocalActivityOptions ANY_LOCAL_ACTIVITY =
      LocalActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofMinutes(1)).build();

  /**
   * The app declares activity timeouts per stage in application.yml; replay matches commands by
   * type and order, not by their options, so any valid timeout will do here. Per type too, as the
   * app sets them: a stub with its own options (the model lane's task queue) is merged with the
   * per-type options only.
   */
  private static final WorkflowImplementationOptions REPLAY_OPTIONS =
      WorkflowImplementationOptions.newBuilder()
          .setDefaultActivityOptions(ANY_ACTIVITY)
          .setDefaultLocalActivityOptions(ANY_LOCAL_ACTIVITY)
          .setActivityOptions(
              ActivityStages.sameForEveryType(ActivityStages.ACTIVITY_TYPES, ANY_ACTIVITY))
          .setLocalActivityOptions(
              ActivityStages.sameForEveryType(
                  ActivityStages.LOCAL_ACTIVITY_TYPES, ANY_LOCAL_ACTIVITY))
          .build();

  public record Result(
      String workflowId, String workflowType, int events, Outcome outcome, String problem) {

    public boolean ok() {
      return outcome == Outcome.OK;
    }
  }

  public enum Outcome {
    OK,
    NON_DETERMINISTIC,
    FAILED
  }

  private HistoryReplay() {}

  public static Result replay(WorkflowExecutionHistory history, List<Class<?>> implementations) {
    return replay(history, implementations, GlobalDataConverter.get());
  }

  /**
   * @param converter reads the history's payloads: with encrypted payloads, the codec with the keys
   *     they were written under (unencrypted payloads pass through it)
   */
  public static Result replay(
      WorkflowExecutionHistory history, List<Class<?>> implementations, DataConverter converter) {
    var started = history.getEvents().get(0).getWorkflowExecutionStartedEventAttributes();
    String type = started.getWorkflowType().getName();
    // replay needs no real server, but the SDK asks one for its capabilities: the in-process test
    // server answers
    TestEnvironmentOptions options =
        TestEnvironmentOptions.newBuilder()
            .setWorkflowClientOptions(
                WorkflowClientOptions.newBuilder().setDataConverter(converter).build())
            .build();
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(options)) {
      Worker worker = env.newWorker(started.getTaskQueue().getName());
      worker.registerWorkflowImplementationTypes(
          REPLAY_OPTIONS, implementations.toArray(Class<?>[]::new));
      worker.replayWorkflowExecution(history);
      return result(history, type, Outcome.OK, null);
    } catch (Exception e) {
      String nonDeterminism = nonDeterminism(e);
      if (nonDeterminism != null) {
        return result(history, type, Outcome.NON_DETERMINISTIC, nonDeterminism);
      }
      return result(
          history, type, Outcome.FAILED, e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private static final String NON_DETERMINISTIC = NonDeterministicException.class.getName() + ": ";

  /**
   * The non-determinism message, or null. The replayer wraps the exception in a query failure whose
   * message carries it as text (not as a cause), so both are looked at.
   */
  private static String nonDeterminism(Throwable e) {
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof NonDeterministicException) {
        return t.getMessage();
      }
      String message = t.getMessage();
      int at = message == null ? -1 : message.indexOf(NON_DETERMINISTIC);
      if (at >= 0) {
        String rest = message.substring(at + NON_DETERMINISTIC.length());
        int end = rest.indexOf(" {WorkflowTaskStartedEventId");
        return (end > 0 ? rest.substring(0, end) : rest.lines().findFirst().orElse(rest)).trim();
      }
    }
    return null;
  }

  private static Result result(
      WorkflowExecutionHistory history, String type, Outcome outcome, String problem) {
    var execution = history.getWorkflowExecution();
    return new Result(
        execution.getWorkflowId(), type, history.getEvents().size(), outcome, problem);
  }
}
