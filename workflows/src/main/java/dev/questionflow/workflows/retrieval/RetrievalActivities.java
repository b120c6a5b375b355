package dev.questionflow.workflows.retrieval;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

@ActivityInterface
public interface RetrievalActivities {

  @ActivityMethod
  RetrievalResult retrieveFaq(RetrievalRequest request);
}
