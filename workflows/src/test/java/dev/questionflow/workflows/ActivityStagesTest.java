package dev.questionflow.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.workflows.intent.IntentActivities;
import dev.questionflow.workflows.lane.LaneActivities;
import dev.questionflow.workflows.retrieval.RetrievalActivities;
import dev.questionflow.workflows.session.SessionActivities;
import dev.questionflow.workflows.template.TemplateActivities;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every method of the interfaces the question workflow runs as local activities has a stage, so
 * application.yml gives it a timeout: a local activity without one fails its workflow task over and
 * over ("one of the startToCloseTimeout or scheduleToCloseTimeout is required"), and the question
 * is stuck.
 */
class ActivityStagesTest {

  @ParameterizedTest
  @ValueSource(
      classes = {
        IntentActivities.class,
        RetrievalActivities.class,
        TemplateActivities.class,
        SessionActivities.class,
        LaneActivities.class
      })
  void everyLocalActivityTypeHasAStage(Class<?> activities) {
    Set<String> staged =
        ActivityStages.LOCAL_ACTIVITY_TYPES.values().stream()
            .flatMap(List::stream)
            .collect(Collectors.toSet());

    assertThat(Arrays.stream(activities.getDeclaredMethods()).map(ActivityStagesTest::typeOf))
        .isSubsetOf(staged);
  }

  /** The SDK's default activity type: the method name with its first letter upper-cased. */
  private static String typeOf(Method method) {
    return Character.toUpperCase(method.getName().charAt(0)) + method.getName().substring(1);
  }
}
