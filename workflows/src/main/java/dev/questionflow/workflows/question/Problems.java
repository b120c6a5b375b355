package dev.questionflow.workflows.question;

import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * What went wrong on the way to an answer, in order: the answer's {@code reason} ("primary model:
 * ModelServerError; retrieval: Unavailable") and the stages behind the degradation metrics, from
 * one list instead of parsed text.
 */
final class Problems {

  /**
   * @param stage the stage that failed ("primary model", "retrieval"), or null for a plain fact
   *     ("no FAQ match")
   */
  record Problem(String stage, String detail) {
    String text() {
      return stage == null ? detail : stage + ": " + detail;
    }
  }

  private static final Logger log = Workflow.getLogger(Problems.class);

  private final List<Problem> list = new ArrayList<>();

  /** A stage's result, or null when it failed (added here). */
  <T> T orNull(String stage, Supplier<T> call) {
    try {
      return call.get();
    } catch (ActivityFailure e) {
      add(stage, failureType(e));
      log.warn("{} stage failed: {}", stage, failureType(e));
      return null;
    }
  }

  void add(String stage, String detail) {
    list.add(new Problem(stage, detail));
  }

  void note(String fact) {
    list.add(new Problem(null, fact));
  }

  /** Whether a problem of this stage was recorded. */
  boolean has(String stage) {
    return list.stream().anyMatch(problem -> stage.equals(problem.stage()));
  }

  /** The answer's reason: every problem in order, or null when there was none. */
  String reason() {
    return list.isEmpty() ? null : String.join("; ", list.stream().map(Problem::text).toList());
  }

  /** Every problem's text, in order (the analytics record's reasons). */
  List<String> texts() {
    return list.stream().map(Problem::text).toList();
  }

  /** The stages that failed, each once, as metric labels ("primary model" -> primary_model). */
  Set<String> degradedStages() {
    Set<String> stages = new TreeSet<>();
    for (Problem problem : list) {
      if (problem.stage() != null) {
        stages.add(problem.stage().toLowerCase(Locale.ROOT).replace(' ', '_'));
      }
    }
    return stages;
  }

  /**
   * The failure's type for people and metrics: the ApplicationFailure type, or the kind of timeout.
   */
  static String failureType(ActivityFailure e) {
    Throwable cause = e.getCause();
    if (cause instanceof ApplicationFailure af) {
      return af.getType();
    }
    if (cause instanceof TimeoutFailure tf) {
      return "Timeout(" + tf.getTimeoutType().name().replace("TIMEOUT_TYPE_", "") + ")";
    }
    return cause == null ? e.getMessage() : cause.getClass().getSimpleName();
  }

  static String failureMessage(ActivityFailure e) {
    Throwable cause = e.getCause();
    String type = failureType(e);
    return cause == null || cause.getMessage() == null ? type : type + ": " + cause.getMessage();
  }
}
