package dev.questionflow.workflows.question;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DegradedStagesTest {

  @Test
  void eachStageNamedInTheReasonOnceAsAMetricLabel() {
    assertThat(QuestionWorkflowImpl.degradedStages(
        "retrieval: RetrievalUnavailable; primary model: ModelServerError; backup model: not configured;"
            + " primary model: skipped, chain budget used up"))
        .containsExactly("backup_model", "primary_model", "retrieval");
  }

  @Test
  void reasonsWithoutAStageGiveNone() {
    assertThat(QuestionWorkflowImpl.degradedStages(null)).isEmpty();
    assertThat(QuestionWorkflowImpl.degradedStages("no FAQ match")).isEmpty();
  }
}
