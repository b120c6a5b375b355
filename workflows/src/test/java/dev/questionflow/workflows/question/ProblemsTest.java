package dev.questionflow.workflows.question;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProblemsTest {

  @Test
  void theReasonListsEveryProblemInOrderAndTheMetricsEachFailedStageOnce() {
    Problems problems = new Problems();
    problems.add("retrieval", "RetrievalUnavailable");
    problems.add("primary model", "ModelServerError");
    problems.add("backup model", "not configured");
    problems.add("primary model", "skipped, chain budget used up");
    problems.note("no FAQ match");

    assertThat(problems.reason())
        .isEqualTo(
            "retrieval: RetrievalUnavailable; primary model: ModelServerError;"
                + " backup model: not configured; primary model: skipped, chain budget used up; no FAQ match");
    assertThat(problems.degradedStages())
        .containsExactly("backup_model", "primary_model", "retrieval");
  }

  @Test
  void noProblemsIsNoReasonAndNoStage() {
    assertThat(new Problems().reason()).isNull();
    Problems facts = new Problems();
    facts.note("no FAQ match");
    assertThat(facts.degradedStages()).isEmpty();
  }
}
