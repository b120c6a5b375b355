package dev.questionflow.activities.outcome;

import dev.questionflow.workflows.outcome.QuestionRecord;
import java.util.List;

/** Where finished questions' records go for analytics (see docs/api.md, "Outcome records"). */
public interface OutcomeStream {

  /**
   * Appends the record unless one for its workflow ID was appended already (a retried final
   * workflow task).
   *
   * @return false when it was a duplicate
   */
  boolean append(QuestionRecord record);

  /** The records finished at or after this time, oldest first. */
  List<QuestionRecord> since(long epochMillis);
}
