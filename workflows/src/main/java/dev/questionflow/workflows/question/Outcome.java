package dev.questionflow.workflows.question;

import dev.questionflow.workflows.SearchAttributes;
import dev.questionflow.workflows.callback.CallbackEvent;
import dev.questionflow.workflows.outcome.QuestionRecords;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The end of a question's path: its answer recorded as a session turn, shown, searchable, counted
 * and logged.
 */
final class Outcome {

  /**
   * Version 1: a handed-over question keeps its answer in the memo ({@link
   * QuestionWorkflow#ANSWER_MEMO}) while it waits for a person, so status reads need no query.
   */
  static final String TICKET_ANSWER_MEMO = "ticket-answer-memo";

  private static final Logger log = Workflow.getLogger(Outcome.class);

  private final SessionTurns sessions;
  private final Progress progress;
  private final long startedAt;
  private Answer answer;

  /** The tier the first answer is recorded for (null: questions from before first answers). */
  private String firstAnswerTier;

  private boolean upgrading;

  /** The question's answer callbacks (null: none configured, nothing is sent). */
  private Callbacks callbacks;

  Outcome(SessionTurns sessions, Progress progress, long startedAt) {
    this.sessions = sessions;
    this.progress = progress;
    this.startedAt = startedAt;
  }

  /**
   * The outcome of a question handed over in an earlier run ({@link TicketReplyWorkflow}): its
   * session turn is recorded, its answer so far is the hand-over answer.
   */
  static Outcome afterHandover(Progress progress, long startedAt, Answer handedOver) {
    Outcome outcome = new Outcome(SessionTurns.recordedEarlier(), progress, startedAt);
    outcome.answer = handedOver;
    return outcome;
  }

  Answer answer() {
    return answer;
  }

  Callbacks callbacks() {
    return callbacks;
  }

  /** From now on each answer given is called back to the caller (null: none). */
  Outcome withCallbacks(Callbacks sender) {
    this.callbacks = sender;
    return this;
  }

  /** When the question was accepted (for the elapsed time of its answer). */
  long startedAt() {
    return startedAt;
  }

  /** A quick answer was given and a fuller one is still expected. */
  boolean upgrading() {
    return upgrading;
  }

  /**
   * From now on the first answer is recorded apart (search attributes {@code FirstAnswerAt} and
   * {@code FirstAnswerLevel}, {@code cs_time_to_first_answer_seconds}): a question that is upgraded
   * closes later than its customer got an answer.
   */
  void recordFirstAnswer(String tier) {
    firstAnswerTier = tier;
  }

  /**
   * A quick answer while the workflow goes on for a fuller one: shown at once (the memo serves
   * status reads, as a handed-over question's answer).
   */
  void answerFirst(Answer result, Problems problems) {
    upgrading = true;
    record(result, Stage.ANSWERED, problems);
    Workflow.upsertMemo(Map.of(QuestionWorkflow.ANSWER_MEMO, result));
    // after the memo: a receiver that reads the status on the callback finds this answer
    callBack(Stage.ANSWERED, result);
  }

  /** The upgrade is over: {@code upgraded} replaces the quick answer, or null when none came. */
  Answer endUpgrade(Answer upgraded, Problems problems) {
    upgrading = false;
    if (upgraded == null) {
      if (callbacks != null) { // the caller was told one is coming: it is not
        callbacks.send(CallbackEvent.UPGRADE_GIVEN_UP, Stage.ANSWERED, answer, false);
      }
      return answer;
    }
    Workflow.getMetricsScope()
        .tagged(Map.of("level", upgraded.level().name()))
        .counter("cs_answer_upgraded_total")
        .inc(1);
    return finish(upgraded.asRevision(2), Stage.ANSWERED, problems);
  }

  /**
   * @param problems what went wrong on the way (the degradation metrics of an answer with a notice)
   */
  Answer finish(Answer result, Stage finalStage, Problems problems) {
    record(result, finalStage, problems);
    callBack(finalStage, result);
    return result;
  }

  private void callBack(Stage finalStage, Answer result) {
    if (callbacks != null) {
      callbacks.send(Callbacks.eventOf(finalStage, result), finalStage, result, upgrading);
    }
  }

  private void record(Answer result, Stage finalStage, Problems problems) {
    sessions.record(result);
    boolean first = answer == null;
    answer = result;
    progress.set(finalStage);
    Progress.details(
        finalStage == Stage.TICKETED
            ? "handed over as ticket " + result.ticketId()
            : "answered at "
                + result.level()
                + " level"
                + (result.reason() == null ? "" : " (" + result.reason() + ")"));
    List<SearchAttributeUpdate<?>> shown = new ArrayList<>();
    shown.add(SearchAttributes.ANSWER_LEVEL.valueSet(result.level().name()));
    shown.add(SearchAttributes.STAGE.valueSet(finalStage.name()));
    if (first && firstAnswerTier != null) {
      long now = Workflow.currentTimeMillis();
      shown.add(
          SearchAttributes.FIRST_ANSWER_AT.valueSet(
              OffsetDateTime.ofInstant(Instant.ofEpochMilli(now), ZoneOffset.UTC)));
      shown.add(SearchAttributes.FIRST_ANSWER_LEVEL.valueSet(result.level().name()));
      Workflow.getMetricsScope()
          .tagged(Map.of("level", result.level().name(), "tier", firstAnswerTier))
          .timer("cs_time_to_first_answer")
          .record(
              com.uber.m3.util.Duration.ofMillis(
                  now - Workflow.getInfo().getRunStartedTimestampMillis()));
    }
    progress.upsert(shown.toArray(new SearchAttributeUpdate<?>[0]));
    if (finalStage == Stage.TICKETED
        && Workflow.getVersion(TICKET_ANSWER_MEMO, Workflow.DEFAULT_VERSION, 1) == 1) {
      Workflow.upsertMemo(Map.of(QuestionWorkflow.ANSWER_MEMO, result));
    }
    recordMetrics(result, problems);
    QuestionRecords.current()
        .finish(
            finalStage.name(),
            result.level().name(),
            result.faqId(),
            problems.texts(),
            Workflow.currentTimeMillis() - startedAt);
    // one line per outcome (replay-safe logger: not repeated on replay); the MDC has WorkflowId and
    // requestId
    log.info(
        "{} at {} level{}",
        finalStage,
        result.level(),
        result.reason() == null ? "" : ": " + result.reason());
  }

  /** Replay-safe metrics (the SDK's workflow metrics scope skips them during replay). */
  private void recordMetrics(Answer result, Problems problems) {
    var scope = Workflow.getMetricsScope().tagged(Map.of("level", result.level().name()));
    scope.counter("cs_answer_total").inc(1);
    if (result.notice() != null) {
      scope.counter("cs_answer_degraded_total").inc(1);
      // per stage that failed on the way, for the SPEC's "degradation rate of a stage" alerts
      for (String stage : problems.degradedStages()) {
        Workflow.getMetricsScope()
            .tagged(Map.of("stage", stage))
            .counter("cs_stage_degraded_total")
            .inc(1);
      }
    }
    scope
        .timer("cs_answer_elapsed")
        .record(com.uber.m3.util.Duration.ofMillis(Workflow.currentTimeMillis() - startedAt));
  }
}
