package dev.questionflow.activities.outcome;

import dev.questionflow.workflows.outcome.QuestionRecord;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The trial mode's outcome stream (no REDIS_URL): the last {@code max-length} records in process
 * memory, lost when the process stops; {@code bin/outcomes export} cannot read it.
 */
public final class InMemoryOutcomeStream implements OutcomeStream {

  private final int maxLength;
  private final Deque<QuestionRecord> records = new ArrayDeque<>();

  public InMemoryOutcomeStream(int maxLength) {
    this.maxLength = Math.max(1, maxLength);
  }

  @Override
  public synchronized boolean append(QuestionRecord record) {
    if (records.stream().anyMatch(r -> r.workflowId().equals(record.workflowId()))) {
      return false;
    }
    records.addLast(record);
    while (records.size() > maxLength) {
      records.removeFirst();
    }
    return true;
  }

  @Override
  public synchronized List<QuestionRecord> since(long epochMillis) {
    return records.stream().filter(r -> r.finishedAtEpochMillis() >= epochMillis).toList();
  }
}
