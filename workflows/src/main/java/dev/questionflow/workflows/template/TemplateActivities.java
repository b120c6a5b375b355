package dev.questionflow.workflows.template;

import dev.questionflow.workflows.question.Answer;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

@ActivityInterface
public interface TemplateActivities {

  /**
   * Renders the FAQ entry's standard answer into the uniform answer shape (level FAQ, with a
   * notice).
   */
  @ActivityMethod
  Answer renderFaqAnswer(TemplateRequest request);
}
