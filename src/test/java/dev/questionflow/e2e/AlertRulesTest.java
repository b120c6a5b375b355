package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * ops/prometheus/alerts.yml: {@code promtool check rules} (syntax and PromQL) and {@code promtool
 * test rules} on alerts.test.yml (each alert fires on synthetic series over its threshold and not
 * under it). promtool comes from Debian's {@code prometheus} package, which .ci/run installs; where
 * it is missing (a developer machine) and not in CI, the rules are only parsed and checked for the
 * fields an alert needs.
 */
class AlertRulesTest {

  private static final Path RULES = Infra.repoRoot().resolve("ops/prometheus/alerts.yml");
  private static final Path RULE_TESTS = Infra.repoRoot().resolve("ops/prometheus/alerts.test.yml");

  @Test
  void theSpecAlertsAreThereWithSeverityAndSummary() throws IOException {
    Map<String, Object> file = new Yaml().load(Files.readString(RULES, StandardCharsets.UTF_8));
    List<String> names = new ArrayList<>();
    for (Object group : (List<?>) file.get("groups")) {
      for (Object r : (List<?>) ((Map<?, ?>) group).get("rules")) {
        Map<?, ?> rule = (Map<?, ?>) r;
        names.add((String) rule.get("alert"));
        assertThat(rule.get("expr")).as("expr of %s", rule.get("alert")).isNotNull();
        assertThat(((Map<?, ?>) rule.get("labels")).get("severity"))
            .as("severity of %s", rule.get("alert"))
            .isIn("warn", "page");
        assertThat(((Map<?, ?>) rule.get("annotations")).get("summary")).isNotNull();
      }
    }
    // the SPEC's rules: FAQ share above 60 % for 5 min; a stage's degradation above 10 % warns,
    // above 30 % pages
    assertThat(names).contains("FaqShareHigh", "StageDegradedWarn", "StageDegradedPage");
    // issue 30's operations: a non-deterministic deploy, workers falling behind, server errors
    assertThat(names)
        .contains(
            "WorkflowTaskFailures",
            "QuestionQueueScheduleToStartHigh",
            "WorkerSlotsExhausted",
            "Http5xxRateHigh",
            "AnswerCallbacksDeadLettered");
  }

  /**
   * Each alert has a case in alerts.test.yml where it fires and one where it stays quiet (an empty
   * exp_alerts), so promtool checks both sides of its threshold.
   */
  @Test
  void everyAlertHasACaseWhereItFiresAndOneWhereItDoesNot() throws IOException {
    Map<String, Object> rules = new Yaml().load(Files.readString(RULES, StandardCharsets.UTF_8));
    Map<String, Object> tests =
        new Yaml().load(Files.readString(RULE_TESTS, StandardCharsets.UTF_8));
    Set<String> fires = new TreeSet<>();
    Set<String> quiet = new TreeSet<>();
    for (Object test : (List<?>) tests.get("tests")) {
      for (Object c : (List<?>) ((Map<?, ?>) test).get("alert_rule_test")) {
        Map<?, ?> check = (Map<?, ?>) c;
        List<?> expected = (List<?>) check.get("exp_alerts");
        (expected == null || expected.isEmpty() ? quiet : fires)
            .add((String) check.get("alertname"));
      }
    }
    for (Object group : (List<?>) rules.get("groups")) {
      for (Object r : (List<?>) ((Map<?, ?>) group).get("rules")) {
        String alert = (String) ((Map<?, ?>) r).get("alert");
        assertThat(fires).as("a case where %s fires", alert).contains(alert);
        assertThat(quiet).as("a case where %s stays quiet", alert).contains(alert);
      }
    }
  }

  @Test
  void promtoolAcceptsTheRulesAndTheirTestsPass() throws Exception {
    boolean ci = "true".equals(System.getenv("CI"));
    if (!onPath("promtool")) {
      assertThat(ci)
          .as("promtool must be installed in CI (.ci/run installs Debian's prometheus package)")
          .isFalse();
      System.out.println(
          "[alerts] promtool not on PATH: rules parsed only (apt-get install prometheus to check them)");
      return;
    }
    assertThat(run("promtool", "check", "rules", RULES.toString())).contains("SUCCESS");
    String tests = run("promtool", "test", "rules", RULE_TESTS.toString());
    assertThat(tests).contains("SUCCESS").doesNotContain("FAILED");
    System.out.println("[alerts] promtool check rules + test rules: SUCCESS");
  }

  static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }

  static String run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("%s:%n%s", String.join(" ", command), output).isZero();
    return output;
  }
}
