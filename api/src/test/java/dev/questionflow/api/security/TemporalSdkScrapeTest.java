package dev.questionflow.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;

/**
 * What Prometheus reads with {@code METRICS_API_KEY} holds the Temporal SDK's metrics that
 * ops/grafana/temporal-sdk-dashboard.json draws, with the labels its panels group by: a question is
 * answered, then the scrape is read. The metrics the SDK creates only when something goes wrong (a
 * failure, a cache miss) cannot show up here; e2e's TemporalSdkDashboardTest checks every name
 * against the SDK's MetricsType. The same context as {@link AccessMatrixTest}.
 */
@AccessMatrixContext
class TemporalSdkScrapeTest {

  private static final Path DASHBOARD = Path.of("../ops/grafana/temporal-sdk-dashboard.json");
  private static final Pattern METRIC = Pattern.compile("\\b(temporal_[a-z_]+)");
  private static final Pattern BY = Pattern.compile("\\bby \\(([^)]*)\\)");
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{.*})?\\s");

  /** Added by Prometheus to every series it scrapes, not by the app. */
  private static final Set<String> TARGET_LABELS = Set.of("instance", "job");

  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

  /**
   * Created by the SDK on their first event only: failures, cache misses and evictions, replays,
   * continue-as-new, and empty polls (a long poll that waits out its minute). Each is still checked
   * against the SDK's names in e2e.
   */
  private static final Set<String> ON_EVENT_ONLY =
      Set.of(
          "temporal_workflow_task_execution_failed_total",
          "temporal_workflow_task_replay_latency_seconds_bucket",
          "temporal_activity_execution_failed_total",
          "temporal_local_activity_execution_failed_total",
          "temporal_workflow_failed_total",
          "temporal_workflow_continue_as_new_total",
          "temporal_sticky_cache_miss_total",
          "temporal_sticky_cache_total_forced_eviction_total",
          "temporal_request_failure_total",
          "temporal_long_request_failure_total",
          "temporal_workflow_task_queue_poll_empty_total",
          "temporal_activity_poll_no_task_total");

  @Autowired MockMvc mvc;

  @Test
  void theScrapeHoldsTheSdkMetricsOfTheTemporalDashboardWithTheLabelsItGroupsBy() throws Exception {
    Map<String, Set<String>> queried = queriedMetricsAndTheirGroupings();
    assertThat(queried).as("the dashboard's SDK metrics").hasSizeGreaterThan(20);
    assertThat(queried.keySet()).as("no stale exemption").containsAll(ON_EVENT_ONLY);
    // one answered from the FAQ (local activities), one handed over to a person (an activity, and
    // workflow tasks after the first: the sticky cache)
    for (String text :
        List.of("How do I top up?", "What is the airspeed velocity of an unladen swallow?")) {
      MockHttpServletResponse asked =
          mvc.perform(
                  post("/api/v1/questions")
                      .header("Authorization", "Bearer " + AccessMatrixTest.KEY_A)
                      .contentType(MediaType.APPLICATION_JSON)
                      .content(
                          "{\"sessionId\":\"s-scrape\",\"userId\":\"u-scrape\",\"clientMsgId\":\""
                              + UUID.randomUUID()
                              + "\",\"text\":\""
                              + text
                              + "\"}"))
              .andReturn()
              .getResponse();
      assertThat(asked.getStatus()).as(asked.getContentAsString()).isEqualTo(202);
    }

    // the SDK hands its metrics to Micrometer every 10 s
    await()
        .atMost(Duration.ofSeconds(45))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              Map<String, Set<String>> exported = scrape();
              Map<String, String> wrong = new TreeMap<>();
              queried.forEach(
                  (metric, groupedBy) -> {
                    Set<String> labels = exported.get(metric);
                    if (labels == null) {
                      if (!ON_EVENT_ONLY.contains(metric)) {
                        wrong.put(metric, "not exported");
                      }
                    } else if (!labels.containsAll(groupedBy)) {
                      wrong.put(metric, "grouped by " + groupedBy + ", has " + labels);
                    }
                  });
              assertThat(wrong).as("the dashboard's metrics against the scrape").isEmpty();
            });
  }

  /** Each SDK metric of the dashboard and the labels its queries group it by. */
  private static Map<String, Set<String>> queriedMetricsAndTheirGroupings() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
    Map<String, Set<String>> queried = new TreeMap<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        String expr = target.path("expr").asText();
        Set<String> groupedBy = new LinkedHashSet<>();
        Matcher by = BY.matcher(expr);
        while (by.find()) {
          for (String label : by.group(1).split(",")) {
            groupedBy.add(label.trim());
          }
          groupedBy.removeAll(TARGET_LABELS);
        }
        Matcher metric = METRIC.matcher(expr);
        while (metric.find()) {
          queried.computeIfAbsent(metric.group(1), m -> new TreeSet<>()).addAll(groupedBy);
        }
      }
    }
    return queried;
  }

  /** Every sample name of the scrape, with the label names its series carry. */
  private Map<String, Set<String>> scrape() throws Exception {
    MockHttpServletResponse response =
        mvc.perform(
                get("/actuator/prometheus")
                    .header("Authorization", "Bearer " + AccessMatrixTest.KEY_METRICS))
            .andReturn()
            .getResponse();
    assertThat(response.getStatus()).isEqualTo(200);
    Map<String, Set<String>> exported = new HashMap<>();
    for (String line : response.getContentAsString().split("\n")) {
      Matcher sample = SAMPLE.matcher(line);
      if (line.startsWith("#") || !sample.find()) {
        continue;
      }
      Set<String> labels = exported.computeIfAbsent(sample.group(1), m -> new TreeSet<>());
      if (sample.group(2) != null) {
        Matcher label = LABEL.matcher(sample.group(2));
        while (label.find()) {
          labels.add(label.group(1));
        }
      }
    }
    return exported;
  }
}
