package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * ops/grafana/questionflow-dashboard.json and, beside it, temporal-sdk-dashboard.json: Grafana
 * dashboards (import them, pick the Prometheus data source). Every panel query must be valid PromQL
 * (checked by {@code promtool check rules} on a recording rule per query, where promtool is
 * installed); every metric of ours must be explained in docs/runbook.md, and every metric and label
 * of the SDK dashboard must be one the Temporal SDK on our classpath names (api's
 * TemporalSdkScrapeTest then finds them in a real scrape).
 */
class GrafanaDashboardTest {

  private static final Path DASHBOARD =
      Infra.repoRoot().resolve("ops/grafana/questionflow-dashboard.json");
  private static final Path SDK_DASHBOARD =
      Infra.repoRoot().resolve("ops/grafana/temporal-sdk-dashboard.json");
  private static final Pattern OUR_METRIC = Pattern.compile("\\b(cs_[a-z_]+)");
  private static final Pattern SDK_METRIC = Pattern.compile("\\b(temporal_[a-z_]+)");
  private static final Pattern GROUPING = Pattern.compile("\\bby \\(([^)]*)\\)");
  private static final Pattern SELECTOR = Pattern.compile("\\{([^}]*)}");

  @Test
  void panelsHaveUniqueIdsAndQueriesAndTheirMetricsAreInTheRunbook() throws Exception {
    JsonNode dashboard =
        new ObjectMapper().readTree(Files.readString(DASHBOARD, StandardCharsets.UTF_8));
    assertThat(dashboard.path("uid").asText()).isNotBlank();
    Set<Integer> ids = new HashSet<>();
    List<String> queries = queries(dashboard);
    for (JsonNode panel : dashboard.path("panels")) {
      assertThat(ids.add(panel.path("id").asInt()))
          .as("panel id %s unique", panel.path("id"))
          .isTrue();
      assertThat(panel.path("targets")).as("queries of %s", panel.path("title")).isNotEmpty();
    }
    String runbook =
        Files.readString(Infra.repoRoot().resolve("docs/runbook.md"), StandardCharsets.UTF_8);
    Set<String> missing = new TreeSet<>();
    for (String query : queries) {
      Matcher m = OUR_METRIC.matcher(query);
      while (m.find()) {
        String metric = m.group(1).replaceAll("_(bucket|count|sum)$", "");
        if (!runbook.contains(metric) && !runbook.contains(metric.replaceAll("_seconds$", ""))) {
          missing.add(metric);
        }
      }
    }
    assertThat(missing)
        .as("metrics on the dashboard that docs/runbook.md does not explain")
        .isEmpty();
  }

  @Test
  void theSdkDashboardQueriesOnlyMetricsAndLabelsTheSdkNames() throws Exception {
    JsonNode dashboard =
        new ObjectMapper().readTree(Files.readString(SDK_DASHBOARD, StandardCharsets.UTF_8));
    assertThat(dashboard.path("uid").asText())
        .isNotBlank()
        .isNotEqualTo(
            new ObjectMapper()
                .readTree(Files.readString(DASHBOARD, StandardCharsets.UTF_8))
                .path("uid")
                .asText());
    Set<Integer> ids = new HashSet<>();
    for (JsonNode panel : dashboard.path("panels")) {
      assertThat(ids.add(panel.path("id").asInt()))
          .as("panel id %s unique", panel.path("id"))
          .isTrue();
    }
    Set<String> exported = TemporalSdkMetrics.prometheusNames();
    Set<String> labels = TemporalSdkMetrics.labelNames();
    Set<String> unknownMetrics = new TreeSet<>();
    Set<String> unknownLabels = new TreeSet<>();
    Set<String> queried = new TreeSet<>();
    for (String query : queries(dashboard)) {
      Matcher metric = SDK_METRIC.matcher(query);
      while (metric.find()) {
        queried.add(metric.group(1));
        if (!exported.contains(metric.group(1))) {
          unknownMetrics.add(metric.group(1));
        }
      }
      List<String> used = new ArrayList<>();
      for (Matcher m = GROUPING.matcher(query); m.find(); ) {
        used.addAll(List.of(m.group(1).split(",")));
      }
      for (Matcher m = SELECTOR.matcher(query); m.find(); ) {
        for (String matcher : m.group(1).split(",")) {
          used.add(matcher.split("[=!~]")[0]);
        }
      }
      used.stream()
          .map(String::trim)
          .filter(l -> !l.isEmpty())
          .forEach(
              l -> {
                if (!labels.contains(l)) {
                  unknownLabels.add(l);
                }
              });
    }
    assertThat(queried).as("SDK metrics on the dashboard").hasSizeGreaterThan(20);
    assertThat(unknownMetrics).as("metrics the SDK does not export (under these names)").isEmpty();
    assertThat(unknownLabels).as("labels the SDK does not set").isEmpty();
    assertThat(Files.readString(Infra.repoRoot().resolve("docs/runbook.md")))
        .as("the runbook points to the SDK dashboard")
        .contains("ops/grafana/temporal-sdk-dashboard.json");
  }

  @Test
  void everyPanelQueryIsValidPromQl() throws Exception {
    if (!AlertRulesTest.onPath("promtool")) {
      assertThat("true".equals(System.getenv("CI")))
          .as("promtool must be installed in CI")
          .isFalse();
      return;
    }
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
    List<String> queries = new ArrayList<>();
    for (Path dashboard : List.of(DASHBOARD, SDK_DASHBOARD)) {
      queries.addAll(
          queries(
              new ObjectMapper().readTree(Files.readString(dashboard, StandardCharsets.UTF_8))));
    }
    for (int i = 0; i < queries.size(); i++) {
      rules
          .append("      - record: dashboard:query_")
          .append(i)
          .append('\n')
          .append("        expr: ")
          .append(new ObjectMapper().writeValueAsString(queries.get(i)))
          .append('\n');
    }
    Path file = Files.createTempFile("dashboard-queries", ".yml");
    Files.writeString(file, rules);
    assertThat(AlertRulesTest.run("promtool", "check", "rules", file.toString()))
        .contains("SUCCESS: " + queries.size() + " rules found");
    Files.delete(file);
  }

  private static List<String> queries(JsonNode dashboard) {
    List<String> queries = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        assertThat(target.path("expr").asText())
            .as("query of %s", panel.path("title"))
            .isNotBlank();
        queries.add(target.path("expr").asText());
      }
    }
    return queries;
  }
}
