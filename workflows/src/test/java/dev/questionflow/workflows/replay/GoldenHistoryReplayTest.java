package dev.questionflow.workflows.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.workflows.deadletter.DeadLetterTicketWorkflowImpl;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.Question;
import dev.questionflow.workflows.question.QuestionWorkflowImpl;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.workflow.Workflow;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every committed golden history replays against the current workflow code, so a change that would
 * break running workflows fails the build; and a deliberately incompatible change is reported as
 * non-determinism.
 */
class GoldenHistoryReplayTest {

  /** The paths the golden set must cover (file names under src/test/resources/golden). */
  private static final List<String> PATHS =
      List.of(
          "rag",
          "faq",
          "ticket-staff-reply",
          "timeout-chain-budget",
          "priority-lane-wait",
          "priority-complaint",
          "dead-letter-question",
          "dead-letter-redelivery",
          "session-wait",
          // recorded before LaneCallsBeforeDeadlines.LANE_ENTRY_WITH_CALL and
          // ChainBudget.BUDGET_AFTER_SESSION_WAIT
          // (version 1 each): still replayed, as workflows started before those changes must go on
          "priority-lane-wait-v0",
          "priority-complaint-v0",
          "session-wait-v0",
          // the models' health reported with the intent: no call to a model known to be down
          "faq-models-down",
          // recorded before Progress.FEWER_UPSERTS (version 1)
          "rag-before-fewer-upserts",
          "faq-before-fewer-upserts",
          "ticket-staff-reply-before-fewer-upserts",
          "timeout-chain-budget-before-fewer-upserts",
          "priority-lane-wait-before-fewer-upserts",
          "priority-complaint-before-fewer-upserts",
          "dead-letter-question-before-fewer-upserts",
          "session-wait-before-fewer-upserts",
          // recorded before Outcome.TICKET_ANSWER_MEMO (version 1)
          "ticket-staff-reply-before-ticket-memo",
          "dead-letter-question-before-ticket-memo",
          // recorded before ModelLane's lane-entry-with-call version 2 (no timers on a free lane)
          "priority-lane-wait-before-lane-timers",
          "priority-complaint-before-lane-timers",
          // first in line of a free lane: not shown as waiting, the budget timer only (before
          // queue deadlines, after which no timer at all: lane-free)
          "lane-free-before-deadlines",
          // with queue deadlines (ModelLane.QUEUE_DEADLINES; every history above is from before
          // them): shed at admission, given up in line at the deadline, upgraded after a quick
          // answer
          "shed",
          "deadline-in-line",
          "upgraded",
          "lane-free",
          // the customer asked again while the model worked: the FAQ answer at once, the model's
          // as revision 2
          "asked-again",
          // recorded before LaneAdmission.FRONT_LINE (version 1): admitted by the projected wait
          // at the question's own key; since then the lane places it (front line, standing line)
          "shed-before-front-line",
          "upgraded-before-front-line",
          "standing-line",
          // recorded before QueueDeadline.PATIENCE_FROM_ASKING (version 1): the patience counted
          // from the model step, not from the ask
          "shed-before-patience-from-asking",
          "deadline-in-line-before-patience-from-asking",
          // recorded before Handover.TICKET_WAIT_APART (version 1): the wait for a person in the
          // question's own run; since then the question continues as a TicketReplyWorkflow
          "ticket-staff-reply-before-ticket-wait-apart",
          "ticket-reply",
          // a question accepted with a callback target (every history above has none, so the
          // callback's child start needs no version marker) and its AnswerCallback workflow
          "faq-callback",
          "answer-callback",
          "answer-callback-redriven");

  static Stream<String> goldenPaths() {
    return PATHS.stream();
  }

  @Test
  void theGoldenSetCoversEveryPath() throws IOException {
    try (Stream<Path> files = Files.list(GoldenHistories.DIR)) {
      assertThat(files.map(f -> f.getFileName().toString().replace(".json", "")))
          .containsExactlyInAnyOrderElementsOf(PATHS);
    }
  }

  @ParameterizedTest
  @MethodSource("goldenPaths")
  void replaysAgainstTheCurrentCode(String path) throws IOException {
    HistoryReplay.Result result =
        HistoryReplay.replay(golden(path), HistoryReplay.CURRENT_WORKFLOWS);

    assertThat(result.problem()).isNull();
    assertThat(result.outcome()).isEqualTo(HistoryReplay.Outcome.OK);
    assertThat(result.events()).isGreaterThan(10);
  }

  @Test
  void theCliReportsNonDeterminismAfterAnIncompatibleChange() {
    String file = GoldenHistories.DIR.resolve("rag.json").toString();

    Run current = cli(HistoryReplay.CURRENT_WORKFLOWS, "--file", file);
    Run changed =
        cli(List.of(TimerFirst.class, DeadLetterTicketWorkflowImpl.class), "--file", file);

    assertThat(current.exit()).as(current.output()).isEqualTo(ReplayCli.OK);
    assertThat(current.output()).startsWith("OK rag ");
    assertThat(changed.exit()).as(changed.output()).isEqualTo(ReplayCli.NON_DETERMINISTIC);
    assertThat(changed.output())
        .startsWith("NON-DETERMINISTIC rag ")
        .contains("Workflow.getVersion");
  }

  @Test
  void theCliRefusesBadArguments() {
    assertThat(cli(HistoryReplay.CURRENT_WORKFLOWS).exit()).isEqualTo(ReplayCli.ERROR);
    assertThat(cli(HistoryReplay.CURRENT_WORKFLOWS, "--file").exit()).isEqualTo(ReplayCli.ERROR);
    Run missing = cli(HistoryReplay.CURRENT_WORKFLOWS, "--file", "no-such-history.json");
    assertThat(missing.exit()).isEqualTo(ReplayCli.ERROR);
    assertThat(missing.output()).contains("could not load the history");
  }

  /** The incompatible change: a timer before anything else, which no recorded history has. */
  public static class TimerFirst extends QuestionWorkflowImpl {
    @Override
    public Answer answer(Question question) {
      Workflow.sleep(Duration.ofSeconds(1));
      return super.answer(question);
    }
  }

  private record Run(int exit, String output) {}

  private static Run cli(List<Class<?>> implementations, String... args) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    int exit =
        ReplayCli.run(args, implementations, new PrintStream(buffer, true, StandardCharsets.UTF_8));
    return new Run(exit, buffer.toString(StandardCharsets.UTF_8));
  }

  private static WorkflowExecutionHistory golden(String path) throws IOException {
    return WorkflowExecutionHistory.fromJson(
        Files.readString(GoldenHistories.DIR.resolve(path + ".json")), path);
  }
}
