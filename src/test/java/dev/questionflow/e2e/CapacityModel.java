package dev.questionflow.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * docs/capacity.md from a {@code bin/bench throughput} report (docs/benchmarks/throughput.json):
 * what one question costs at each level, and what a day of questions needs. Every figure is
 * computed here from the report and the assumptions below, so the document cannot drift from the
 * measurement it names ({@code CapacityDocTest}).
 */
final class CapacityModel {

  static final long QUESTIONS_PER_DAY = 1_000_000;
  static final int PEAK_FACTOR = 10;
  static final int CORES_PER_INSTANCE = 2;
  static final double TARGET_CPU = 0.6;

  /** Per role: one instance may fail or roll while the rest carry the peak. */
  static final int MIN_INSTANCES = 2;

  static final int DAYS_PER_MONTH = 30;
  static final int RETENTION_DAYS = 7;

  /**
   * Temporal Cloud pay-as-you-go prices of the Business plan (docs.temporal.io/cloud/pricing, read
   * 2026-12-06 from temporalio/documentation docs/evaluate/cloud/pricing.mdx at 0217b71): dollars
   * per million actions by tier (millions up to which the tier runs).
   */
  static final double[][] ACTION_TIERS = {
    {5, 50}, {10, 45}, {20, 40}, {50, 35}, {100, 30}, {200, 25}
  };

  static final double INCLUDED_ACTIONS_MILLIONS = 2.5;
  static final double PLAN_MINIMUM = 500;
  static final double PLAN_SHARE = 0.10;
  static final double RETAINED_PER_GBH = 0.00105;
  static final int HOURS_PER_MONTH = 744;

  /**
   * A namespace's default rate limit (docs.temporal.io/cloud/limits, read 2026-12-06): it grows
   * with the last 7 days' use, or with provisioned capacity.
   */
  static final int DEFAULT_ACTIONS_PER_SECOND =
      500; // the price page's conversion: 1 GB-month = 744 GBh

  /** Share of questions that need the model, for the mixed columns. */
  static final double[] MODEL_SHARES = {0, 0.5, 1};

  /** What one question costs at one level, from the report. */
  record Level(
      String name,
      double apiCpuMs,
      double workerCpuMs,
      double serverCpuMs,
      double actions,
      double events,
      double workflowTasks,
      double historyBytes,
      double redisCommands,
      double promptTokens,
      double completionTokens,
      double modelCalls) {

    /** The mean over questions of which {@code share} are {@code other} and the rest this. */
    Level mix(Level other, double share) {
      return new Level(
          Math.round(share * 100) + " % model",
          apiCpuMs * (1 - share) + other.apiCpuMs * share,
          workerCpuMs * (1 - share) + other.workerCpuMs * share,
          serverCpuMs * (1 - share) + other.serverCpuMs * share,
          actions * (1 - share) + other.actions * share,
          events * (1 - share) + other.events * share,
          workflowTasks * (1 - share) + other.workflowTasks * share,
          historyBytes * (1 - share) + other.historyBytes * share,
          redisCommands * (1 - share) + other.redisCommands * share,
          promptTokens * (1 - share) + other.promptTokens * share,
          completionTokens * (1 - share) + other.completionTokens * share,
          modelCalls * (1 - share) + other.modelCalls * share);
    }
  }

  private CapacityModel() {}

  /**
   * The api's CPU and the worker's as measured apart in the roles phase (a CS_ROLE=api instance in
   * front of a CS_ROLE=worker one).
   */
  static Level faq(JsonNode report) {
    JsonNode roles = phase(report, "roles");
    return level(
        "FAQ (semantic)",
        phase(report, "faq"),
        apiCpuMs(roles),
        roles.at("/measured/workerCpuMsPerJob").asDouble(),
        0);
  }

  /**
   * The rag phase ran all-in-one: its worker's CPU is its app CPU less the api's, plus what running
   * the roles apart added at FAQ level (the roles phase's two instances against the faq phase's
   * one).
   */
  static Level rag(JsonNode report) {
    JsonNode roles = phase(report, "roles");
    double api = apiCpuMs(roles);
    double split =
        api
            + roles.at("/measured/workerCpuMsPerJob").asDouble()
            - phase(report, "faq").at("/measured/workerCpuMsPerJob").asDouble();
    JsonNode rag = phase(report, "rag");
    return level(
        "RAG (model)", rag, api, rag.at("/measured/workerCpuMsPerJob").asDouble() - api + split, 1);
  }

  private static double apiCpuMs(JsonNode roles) {
    return roles.at("/measured/perJob/apiCpuMs").asDouble();
  }

  private static Level level(
      String name, JsonNode phase, double apiCpuMs, double workerCpuMs, int modelCalls) {
    JsonNode m = phase.get("measured");
    JsonNode h = phase.get("histories");
    JsonNode perJob = m.get("perJob");
    return new Level(
        name,
        apiCpuMs,
        workerCpuMs,
        m.get("serverCpuMsPerJob").asDouble(),
        h.get("actions").asDouble(),
        h.get("events").asDouble(),
        h.get("workflowTasks").asDouble(),
        h.get("bytes").asDouble(),
        perJob.path("redisCommands").asDouble(),
        perJob.path("promptTokens").asDouble(),
        perJob.path("completionTokens").asDouble(),
        modelCalls);
  }

  private static JsonNode phase(JsonNode report, String name) {
    for (JsonNode phase : report.get("phases")) {
      if (phase.get("name").asText().equals(name)) {
        return phase;
      }
    }
    throw new IllegalArgumentException("the report has no " + name + " phase");
  }

  /** Dollars for a month's actions beyond the plan's, by the price tiers. */
  static double actionsCost(double monthlyMillions) {
    double billable = Math.max(0, monthlyMillions - INCLUDED_ACTIONS_MILLIONS);
    double cost = 0;
    double from = 0;
    for (double[] tier : ACTION_TIERS) {
      double inTier = Math.min(billable, tier[0]) - from;
      if (inTier <= 0) {
        break;
      }
      cost += inTier * tier[1];
      from = tier[0];
    }
    if (billable > ACTION_TIERS[ACTION_TIERS.length - 1][0]) {
      throw new IllegalArgumentException("beyond the published tiers: ask Temporal's sales");
    }
    return cost;
  }

  static int instances(double cpuMsPerQuestion, double questionsPerSecond) {
    double cores = cpuMsPerQuestion * questionsPerSecond / 1000;
    return Math.max(MIN_INSTANCES, (int) Math.ceil(cores / (CORES_PER_INSTANCE * TARGET_CPU)));
  }

  static String render(JsonNode report, String reportPath) {
    Level faq = faq(report);
    Level rag = rag(report);
    List<Level> mixes = new ArrayList<>();
    for (double share : MODEL_SHARES) {
      mixes.add(faq.mix(rag, share));
    }
    double mean = QUESTIONS_PER_DAY / 86_400.0;
    double peak = mean * PEAK_FACTOR;
    StringBuilder out = new StringBuilder();
    out.append("# Capacity and cost\n\n");
    out.append(
        "Generated by `CapacityDocTest` from `"
            + reportPath
            + "`, the `bin/bench throughput` run of "
            + report.get("at").asText()
            + " ("
            + report.get("cores").asInt()
            + " cores, app JVM `"
            + String.join(" ", toList(report.get("jvm")))
            + "`, one dev server with SQLite). Do not edit it by hand: after a new run, copy"
            + " `e2e/target/bench/throughput.json` there and run `mvn -o -pl e2e test"
            + " -Dtest=CapacityDocTest -Dcapacity.update=true`. The test fails when this file and"
            + " the report disagree.\n\n");
    out.append("## One question\n\n");
    out.append(
        "Means over each phase's measured window (app CPU, Redis commands, tokens) and over the"
            + " last 20 histories of it (actions, events, bytes). FAQ: answered from the FAQ index"
            + " without a model; RAG: retrieval plus one call to a fake model with no latency (its"
            + " token counts grow with the prompt and answer it sees; a real model's answers are"
            + " longer). CPU by role comes from the `roles` phase (FAQ-level questions through a"
            + " `CS_ROLE=api` instance in front of a `CS_ROLE=worker` one); the RAG phase ran"
            + " all-in-one, so its worker CPU is its app CPU less the api's, plus what running the"
            + " roles apart added at FAQ level.\n\n");
    out.append(
        "| level | api CPU ms | worker CPU ms | Temporal server CPU ms | Temporal actions |"
            + " history events | workflow tasks | history KB | Redis commands | prompt tokens |"
            + " completion tokens |\n");
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Level level : List.of(faq, rag)) {
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f |%n",
              level.name(),
              level.apiCpuMs(),
              level.workerCpuMs(),
              level.serverCpuMs(),
              level.actions(),
              level.events(),
              level.workflowTasks(),
              level.historyBytes() / 1024,
              level.redisCommands(),
              level.promptTokens(),
              level.completionTokens()));
    }
    out.append(
        "\nNot measured by this benchmark: the keyword rung and the hand-over to a person (a"
            + " ticket: more activities, and a `TicketReplyWorkflow` that waits for the reply),"
            + " model retries and fallbacks, status reads and streams (`bin/bench streams`). Redis"
            + " commands are what Redis counted, those run inside the lane's Lua scripts included"
            + " (most of a RAG question's: the lane's per-second statistics, 60 hashes read by one"
            + " script for every admission and ETA).\n\n");
    out.append(
        String.format(
            Locale.ROOT,
            "## One million questions a day%n%nMean %.1f questions/s; peaks of %dx the mean: %.0f"
                + " questions/s. Columns: the share of questions that need the model. Instances"
                + " have %d cores run at %.0f %% at the peak, at least %d per role; a month is %d"
                + " days.%n%n",
            mean,
            PEAK_FACTOR,
            peak,
            CORES_PER_INSTANCE,
            TARGET_CPU * 100,
            MIN_INSTANCES,
            DAYS_PER_MONTH));
    out.append("| | ");
    mixes.forEach(m -> out.append(m.name()).append(" | "));
    out.append("\n|---|");
    mixes.forEach(m -> out.append("---:|"));
    out.append('\n');
    row(out, mixes, "api instances (peak)", m -> "" + instances(m.apiCpuMs(), peak));
    row(out, mixes, "worker instances (peak)", m -> "" + instances(m.workerCpuMs(), peak));
    row(
        out,
        mixes,
        "Temporal actions per day",
        m -> String.format(Locale.ROOT, "%,.0f", m.actions() * QUESTIONS_PER_DAY));
    row(
        out,
        mixes,
        "Temporal actions/s at the peak",
        m -> {
          double aps = m.actions() * peak;
          return String.format(
              Locale.ROOT,
              "%.0f (%s)",
              aps,
              aps <= DEFAULT_ACTIONS_PER_SECOND
                  ? "within the default " + DEFAULT_ACTIONS_PER_SECOND
                  : String.format(
                      Locale.ROOT,
                      "%.1fx the default %d",
                      aps / DEFAULT_ACTIONS_PER_SECOND,
                      DEFAULT_ACTIONS_PER_SECOND));
        });
    row(
        out,
        mixes,
        "Temporal actions per month",
        m ->
            String.format(
                Locale.ROOT, "%.1f M", m.actions() * QUESTIONS_PER_DAY * DAYS_PER_MONTH / 1e6));
    row(
        out,
        mixes,
        "Temporal Cloud actions, $/month",
        m -> String.format(Locale.ROOT, "%,.0f", actionsCost(monthlyMillions(m))));
    row(
        out,
        mixes,
        "retained history (" + RETENTION_DAYS + " days), GB",
        m -> String.format(Locale.ROOT, "%.1f", retainedGb(m)));
    row(
        out,
        mixes,
        "Temporal Cloud storage, $/month",
        m -> String.format(Locale.ROOT, "%,.0f", storageCost(m)));
    row(
        out,
        mixes,
        "Temporal Cloud total with the Business plan, $/month",
        m -> String.format(Locale.ROOT, "%,.0f", cloudTotal(m)));
    row(
        out,
        mixes,
        "Redis commands/s at the peak",
        m -> String.format(Locale.ROOT, "%,.0f", m.redisCommands() * peak));
    row(
        out,
        mixes,
        "model calls/s at the peak (lane rate needed)",
        m -> String.format(Locale.ROOT, "%.0f", m.modelCalls() * peak));
    row(
        out,
        mixes,
        "model tokens per minute at the peak",
        m ->
            String.format(
                Locale.ROOT, "%,.0f", (m.promptTokens() + m.completionTokens()) * peak * 60));
    out.append(
        String.format(
            Locale.ROOT,
            "%nTemporal Cloud prices: Business plan, pay-as-you-go, as published on"
                + " docs.temporal.io/cloud/pricing (read 2026-12-06): %.1f M actions included,"
                + " then $50 per million for the first 5 M, $45 up to 10 M, $40 up to 20 M, $35 up"
                + " to 50 M, $30 up to 100 M, $25 up to 200 M; retained storage $%.5f per GBh (%d"
                + " GBh per GB-month); the plan costs the greater of $%.0f a month or %.0f %% of"
                + " usage. Active storage (questions open for seconds) is left out. A namespace"
                + " starts at %d actions/s and grows with the last 7 days' use"
                + " (docs.temporal.io/cloud/limits): a new namespace at more than that throttles"
                + " workflow progress until it grows, or needs provisioned capacity. Actions are"
                + " counted from the histories by the published rules (docs.temporal.io/cloud/actions):"
                + " a start, each search-attribute upsert, each activity scheduled or retried, each"
                + " timer and signal, all markers of one workflow task as one; status reads"
                + " (describe, history) are not actions but count against the namespace's request"
                + " rate.%n",
            INCLUDED_ACTIONS_MILLIONS,
            RETAINED_PER_GBH,
            HOURS_PER_MONTH,
            PLAN_MINIMUM,
            PLAN_SHARE * 100,
            DEFAULT_ACTIONS_PER_SECOND));
    out.append(
        "\nThe model's quota is what the lane rate must stay inside (`LANE_PRIMARY_RATE`,"
            + " docs/configuration.md): at the peak the lanes need the calls per second above, or"
            + " questions beyond the quota wait in line until their deadline and fall to the FAQ"
            + " (docs/benchmarks.md, overload). Instances are sized for CPU alone: memory per"
            + " instance is set by the heap (`-XX:MaxRAMPercentage=75` of the container's limit,"
            + " docs/running.md).\n");
    return out.toString();
  }

  private static double monthlyMillions(Level m) {
    return m.actions() * QUESTIONS_PER_DAY * DAYS_PER_MONTH / 1e6;
  }

  private static double retainedGb(Level m) {
    return m.historyBytes() * QUESTIONS_PER_DAY * RETENTION_DAYS / 1e9;
  }

  private static double storageCost(Level m) {
    return retainedGb(m) * HOURS_PER_MONTH * RETAINED_PER_GBH;
  }

  private static double cloudTotal(Level m) {
    double usage = actionsCost(monthlyMillions(m)) + storageCost(m);
    return usage + Math.max(PLAN_MINIMUM, PLAN_SHARE * usage);
  }

  private static void row(
      StringBuilder out,
      List<Level> mixes,
      String label,
      java.util.function.Function<Level, String> cell) {
    out.append("| ").append(label).append(" | ");
    mixes.forEach(m -> out.append(cell.apply(m)).append(" | "));
    out.append('\n');
  }

  private static List<String> toList(JsonNode array) {
    List<String> items = new ArrayList<>();
    array.forEach(n -> items.add(n.asText()));
    return items;
  }
}
