package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The names the Temporal SDK on our classpath gives its metrics ({@code io.temporal.worker} and
 * {@code io.temporal.serviceclient.MetricsType}) and their labels ({@code MetricsTag}), as they
 * come out at /actuator/prometheus: the SDK reports through Micrometer
 * (MicrometerClientStatsReporter), a counter gains {@code _total}, a timer (published as a
 * histogram) {@code _seconds} and {@code _seconds_bucket|count|sum|max}, a gauge keeps its name.
 */
final class TemporalSdkMetrics {

  /**
   * The SDK's gauges (MetricsType does not say which are: these are set with Scope.gauge in the
   * SDK's sources); every other name that is not a latency is a counter.
   */
  private static final Set<String> GAUGES =
      Set.of(
          "NUM_POLLERS",
          "WORKER_TASK_SLOTS_AVAILABLE",
          "WORKER_TASK_SLOTS_USED",
          "STICKY_CACHE_SIZE",
          "WORKFLOW_ACTIVE_THREAD_COUNT",
          "RESOURCE_MEM_USAGE",
          "RESOURCE_CPU_USAGE",
          "RESOURCE_MEM_PID",
          "RESOURCE_CPU_PID");

  /** The labels Prometheus adds to every series it scrapes, and the histograms' bucket bound. */
  private static final Set<String> OTHER_LABELS = Set.of("instance", "job", "le");

  private TemporalSdkMetrics() {}

  /** Every Prometheus name the SDK's metrics may appear under. */
  static Set<String> prometheusNames() {
    Map<String, String> types = new LinkedHashMap<>();
    types.putAll(constants(io.temporal.worker.MetricsType.class));
    types.putAll(constants(io.temporal.serviceclient.MetricsType.class));
    types.values().removeIf(name -> name.equals("temporal_"));
    assertThat(types.keySet()).as("the SDK's gauges are still there").containsAll(GAUGES);
    Set<String> names = new TreeSet<>();
    types.forEach(
        (field, name) -> {
          if (field.endsWith("LATENCY")) {
            for (String suffix : new String[] {"", "_bucket", "_count", "_sum", "_max"}) {
              names.add(name + "_seconds" + suffix);
            }
          } else if (GAUGES.contains(field)) {
            names.add(name);
          } else {
            names.add(name.endsWith("_total") ? name : name + "_total");
          }
        });
    return names;
  }

  /** Every label the SDK sets, and the ones Prometheus adds. */
  static Set<String> labelNames() {
    Set<String> labels = new TreeSet<>(OTHER_LABELS);
    constants(io.temporal.serviceclient.MetricsTag.class)
        .forEach(
            (field, value) -> {
              // the rest are values (failure reasons, "none") and keys of call options
              if (!field.startsWith("TASK_FAILURE_VALUE_") && !field.equals("DEFAULT_VALUE")) {
                labels.add(value);
              }
            });
    labels.add(io.temporal.worker.WorkerMetricsTag.WorkerType.WORKFLOW_WORKER.getTag());
    labels.add(io.temporal.worker.PollerTypeMetricsTag.PollerType.WORKFLOW_TASK.getTag());
    return labels;
  }

  private static Map<String, String> constants(Class<?> type) {
    Map<String, String> constants = new LinkedHashMap<>();
    for (Field field : type.getFields()) {
      int modifiers = field.getModifiers();
      if (Modifier.isStatic(modifiers)
          && Modifier.isFinal(modifiers)
          && field.getType() == String.class) {
        try {
          constants.put(field.getName(), (String) field.get(null));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return constants;
  }
}
