package dev.questionflow.workflows.intent;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

@ActivityInterface
public interface IntentActivities {

  String DEFAULT_INTENT = "general_question";

  @ActivityMethod
  IntentResult classifyIntent(String text);
}
