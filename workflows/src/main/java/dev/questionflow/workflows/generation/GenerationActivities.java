package dev.questionflow.workflows.generation;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

@ActivityInterface
public interface GenerationActivities {

  @ActivityMethod
  GenerationResult generateAnswer(GenerationRequest request);
}
