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
 * ops/grafana/questionflow-dashboard.json: a Grafana dashboard (import it, pick the Prometheus data
 * source). Every panel query must be valid PromQL (checked by {@code promtool check rules} on a
 * recording rule per query, where promtool is installed) and every metric of ours it uses must be
 * explained in docs/runbook.md.
 */
class GrafanaDashboardTest {

  private static final Path DASHBOARD =
      Infra.repoRoot().resolve("ops/grafana/questionflow-dashboard.json");
  private static final Pattern OUR_METRIC = Pattern.compile("\\b(cs_[a-z_]+)");

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
  void everyPanelQueryIsValidPromQl() throws Exception {
    if (!AlertRulesTest.onPath("promtool")) {
      assertThat("true".equals(System.getenv("CI")))
          .as("promtool must be installed in CI")
          .isFalse();
      return;
    }
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
    List<String> queries =
        queries(new ObjectMapper().readTree(Files.readString(DASHBOARD, StandardCharsets.UTF_8)));
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
