package dev.questionflow.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.questionflow.e2e.PeersBenchmarkIT.BurstFigures;
import dev.questionflow.e2e.PeersBenchmarkIT.Figures;
import dev.questionflow.e2e.PeersBenchmarkIT.Scenario;
import dev.questionflow.e2e.PeersBenchmarkIT.Second;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The peers benchmark's report, made only from the figures of the run: JSON, a Markdown page with a
 * table per scenario (and the burst's extra table), and per scenario one PNG of three charts per
 * contestant (first answers per second by level, and upgrades; model calls per second against the
 * quota; questions waiting for an answer).
 */
final class PeersReport {

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private PeersReport() {}

  /** One line per contestant and scenario, as the run goes: its row of the scenario's table. */
  static String line(Figures f) {
    return "[peers] " + f.scenario() + " " + row(f);
  }

  /** The header of a scenario's table: {@link #row}'s columns. */
  private static final String HEADER =
      "| contestant | offered | answered in 60 s | answered within 15 s | answered within 30 s |"
          + " time to first answer p50 / p99 s | by a model | by the FAQ | tickets | errors |"
          + " p50 / p95 / p99 s | VIPs answered by a model | model calls |"
          + " primary busy (% of quota while offered) | 429 | failed | wasted |"
          + " calls per question | duplicates | lane ledger entries after the scenario |"
          + " peak memory | peak threads |\n"
          + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
          + "---|\n";

  /** A contestant's row in a scenario's table. */
  private static String row(Figures f) {
    return String.format(
        "| %s | %d | **%d** (%.0f %%) | %d (%.0f %%) | %d (%.0f %%) | %s / %s | %d | %d | %d | %d |"
            + " %.1f / %.1f / %.1f | %s | %d | %.0f %% | %d | %d | %d | %.2f | %d | %s | %d MB |"
            + " %d |%n",
        f.contestant(),
        f.offered(),
        f.answered60s(),
        percent(f.answered60s(), f.offered()),
        f.answered15s(),
        percent(f.answered15s(), f.offered()),
        f.answered30s(),
        percent(f.answered30s(), f.offered()),
        seconds(f.ttfaP50()),
        seconds(f.ttfaP99()),
        f.full60s(),
        f.fallback60s(),
        f.tickets(),
        f.errors(),
        f.p50(),
        f.p95(),
        f.p99(),
        f.vips() == 0 ? "–" : f.vipsByModel() + " of " + f.vips(),
        f.modelCalls(),
        f.modelBusy(),
        f.refused(),
        f.failed(),
        f.wasted(),
        f.callsPerQuestion(),
        f.duplicates(),
        f.ledgerEntries() == null ? "n/a" : String.valueOf(f.ledgerEntries()),
        f.peakRssMb(),
        f.peakThreads());
  }

  /** The burst's extra line: quick answers and their upgrades, the questions after the burst. */
  private static String burstRow(Figures f) {
    BurstFigures b = f.burst();
    return String.format(
        "| %s | %d | %d | %d | %d | %d | %s | %s | %s | %d | %d | %s |%n",
        f.contestant(),
        b.burstQuestions(),
        b.quickAnswers(),
        b.upgradedIn2Min(),
        b.afterQuestions(),
        b.afterByModel(),
        b.afterModelAnswerP99() == null ? "–" : String.format("%.1f", b.afterModelAnswerP99()),
        b.modelLatencyP99() == null ? "–" : String.format("%.1f", b.modelLatencyP99()),
        b.caughtUpSeconds() == null ? "never" : String.format("%.1f", b.caughtUpSeconds()),
        b.afterCaughtUpQuestions(),
        b.afterCaughtUpByModel(),
        b.afterCaughtUpModelAnswerP99() == null
            ? "–"
            : String.format("%.1f", b.afterCaughtUpModelAnswerP99()));
  }

  private static double percent(int part, int whole) {
    return whole == 0 ? 0.0 : 100.0 * part / whole;
  }

  /** Seconds with one decimal; null: never (the percentile fell on questions without an answer). */
  private static String seconds(Double value) {
    return value == null ? "never" : String.format("%.1f", value);
  }

  /**
   * Writes e2e/target/bench/peers.{json,md} and the charts; with {@code docs} also
   * docs/benchmarks.md and docs/benchmarks/*.png.
   */
  static void write(List<Figures> all, List<Scenario> scenarios, double minutes, boolean docs)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    Path root = Infra.repoRoot();
    Path out = root.resolve("e2e/target/bench");
    Files.createDirectories(out);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("machine", machine());
    json.put("minutes", Math.round(minutes * 10) / 10.0);
    json.put("quick", PeersBenchmarkIT.QUICK);
    json.put("scenarios", scenarios.stream().map(PeersBenchmarkIT::asMap).toList());
    json.put(
        "oursSettings",
        PeerContestants.Ours.settings(PeersBenchmarkIT.QUOTA).stream()
            .map(
                setting -> {
                  Map<String, String> map = new LinkedHashMap<>();
                  map.put("variable", setting.variable());
                  map.put("value", setting.shown());
                  map.put("why", setting.why());
                  return map;
                })
            .toList());
    json.put("figures", all);
    JSON.writeValue(out.resolve("peers.json").toFile(), json);
    for (Scenario scenario : scenarios) {
      List<XYChart> charts = new ArrayList<>();
      for (Figures f : all) {
        if (f.scenario().equals(scenario.id())) {
          charts.addAll(charts(f, scenario));
        }
      }
      if (!charts.isEmpty()) {
        BitmapEncoder.saveBitmap(
            charts,
            charts.size() / 3,
            3,
            out.resolve("peers-" + scenario.id()).toString(),
            BitmapEncoder.BitmapFormat.PNG);
      }
    }
    String markdown = markdown(all, scenarios, minutes);
    Files.writeString(out.resolve("peers.md"), markdown);
    if (docs) {
      Path images = root.resolve("docs/benchmarks");
      Files.createDirectories(images);
      for (Scenario scenario : scenarios) {
        Path png = out.resolve("peers-" + scenario.id() + ".png");
        if (Files.exists(png)) {
          Files.copy(
              png,
              images.resolve(png.getFileName()),
              java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
      Files.writeString(root.resolve("docs/benchmarks.md"), markdown);
    }
  }

  private static List<XYChart> charts(Figures f, Scenario scenario) {
    List<Second> t = f.timeline();
    XYChart answers = chart(f.contestant() + ": first answers per second", "answers/s");
    series(answers, "model answer", t, Second::full);
    series(answers, "FAQ / keyword", t, Second::fallback);
    series(answers, "error seen", t, Second::errors);
    if (f.upgrades() > 0) {
      series(answers, "upgrade (a model's, after a quick one)", t, Second::upgrades);
    }
    XYChart calls = chart(f.contestant() + ": model calls per second", "calls/s");
    series(calls, "primary answered", t, Second::primaryOk);
    series(calls, "primary 429", t, Second::primaryRefused);
    series(calls, "primary failed", t, Second::primaryFailed);
    series(calls, "backup answered", t, Second::backupOk);
    series(calls, "backup 429", t, Second::backupRefused);
    line(calls, "primary quota", t, PeersBenchmarkIT.QUOTA);
    XYChart waiting = chart(f.contestant() + ": questions waiting for an answer", "questions");
    series(waiting, "waiting (offered, not answered)", t, Second::waiting);
    if (t.stream().anyMatch(s -> s.contestantQueue() >= 0)) {
      series(waiting, "in the model lane's queue", t, s -> Math.max(0, s.contestantQueue()));
    }
    List<XYChart> three = List.of(answers, calls, waiting);
    List<Integer> lines = new ArrayList<>(scenario.phaseStarts());
    if (scenario.faultOn() != null) {
      lines.addAll(List.of(scenario.eventFrom(), scenario.eventTo()));
    }
    for (XYChart chart : three) {
      for (int at : lines) {
        chart.addAnnotation(new org.knowm.xchart.AnnotationLine(at, true, false));
      }
    }
    return three;
  }

  private static XYChart chart(String title, String yTitle) {
    XYChart chart =
        new XYChartBuilder()
            .width(620)
            .height(320)
            .title(title)
            .xAxisTitle("seconds from the first question")
            .yAxisTitle(yTitle)
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(13f));
    return chart;
  }

  private static void series(
      XYChart chart, String name, List<Second> t, ToDoubleFunction<Second> y) {
    double[] xs = t.stream().mapToDouble(Second::t).toArray();
    double[] ys = t.stream().mapToDouble(y).toArray();
    chart.addSeries(name, xs, ys).setMarker(SeriesMarkers.NONE);
  }

  private static void line(XYChart chart, String name, List<Second> t, double value) {
    double[] xs = {0, t.size() - 1};
    XYSeries quota = chart.addSeries(name, xs, new double[] {value, value});
    quota.setMarker(SeriesMarkers.NONE);
    quota.setLineStyle(SeriesLines.DASH_DASH);
    quota.setLineColor(java.awt.Color.BLACK);
  }

  private static String markdown(List<Figures> all, List<Scenario> scenarios, double minutes) {
    Map<String, String> machine = machine();
    StringBuilder md = new StringBuilder();
    md.append("# Benchmarks: the same storms against ours, a naive bot and a LiteLLM proxy\n\n");
    md.append(
        "Written by `bin/bench peers"
            + (PeersBenchmarkIT.QUICK ? " --quick" : "")
            + "` (PeersBenchmarkIT, PeersReport): every figure and chart below comes from that run;"
            + " nothing is edited by hand. ");
    md.append(
        String.format(
            "Run on %s: %s, %s cores, %s, Java %s; %.1f minutes.%n%n",
            machine.get("date"),
            machine.get("cpu"),
            machine.get("cores"),
            machine.get("memory"),
            machine.get("java"),
            minutes));
    md.append("## The contestants, all against the same fake model\n\n");
    md.append(
        String.format(
            "- A fake primary model in a process of its own: a provider's token bucket of %.0f calls/s"
                + " (burst %.0f, 429 with Retry-After over it), 1-3 s latency; a backup with its own"
                + " bucket of %.0f calls/s. Both log every call.%n",
            PeersBenchmarkIT.QUOTA, PeersBenchmarkIT.QUOTA, PeersBenchmarkIT.BACKUP_QUOTA));
    md.append(
        "- **ours**: two app instances, the Temporal dev server and Redis, the primary lane at the"
            + " quota, the backup configured. The back end POSTs the question (202 at once) and"
            + " learns from Temporal visibility when the customer got the first answer and at which"
            + " level (`FirstAnswerAt`, `FirstAnswerLevel`; for an app from before them, the close"
            + " time and `AnswerLevel`), and of an upgrade (a model's answer after a quick FAQ one)"
            + " when the workflow closes with a model's `AnswerLevel`. Its settings are the"
            + " product's defaults except these (besides the wiring: a task queue of its own, the"
            + " fake models' URLs, names and keys; bin/run's JVM flags):\n");
    for (PeerContestants.Setting setting : PeerContestants.Ours.settings(PeersBenchmarkIT.QUOTA)) {
      md.append("  - `")
          .append(setting.variable())
          .append('=')
          .append(setting.shown())
          .append("`: ")
          .append(setting.why())
          .append('\n');
    }
    md.append(
        "- **naive**: `bench/naive`, one Spring Boot app that calls the model inside the request"
            + " (langchain4j's client, 30 s timeout, its default 2 retries, Tomcat's 200 threads) and"
            + " answers from the same FAQ matcher when the call fails.\n");
    md.append(
        "- **litellm**: two LiteLLM proxies (`bench/litellm`, pinned) sharing usage through Redis,"
            + " the primary's rpm at the quota, `num_retries: 2`, a fallback to the backup,"
            + " cooldowns; the back end calls a proxy and retries an error once.\n\n");
    md.append(
        "Each contestant is started once and runs the scenarios in the order below, after serving"
            + " the quota for 30 s (a warm-up whose figures are not kept). Before each scenario"
            + " ours' lanes are rested (their rates and statistics deleted from Redis, the configured"
            + " rate back on the server), since every scenario starts from a healthy provider: a"
            + " rate the adaptive controller halved in the outage would otherwise hold the next"
            + " scenario at half the quota for minutes. A proxy's cooldowns are there when the next"
            + " begins.\n\n");
    md.append(
        "Every figure of customer time is read from the customer's **first answer**: ours may give"
            + " a quick FAQ answer when the model's line is longer than the customer's patience,"
            + " and a model's answer later; the naive bot's and LiteLLM's first answer is their"
            + " only one. A question is **answered** when the back end has an answer within 60 s of"
            + " asking (a model's answer, or a FAQ/keyword answer); **answered within 15 s / 30 s**"
            + " likewise; **errors** are what a customer saw instead (an error, or nothing within"
            + " 60 s); **tickets** (ours) went to a person, with the promise of a reply. **Time to"
            + " first answer** is over every question offered, one without an answer (an error, a"
            + " ticket) counting as never; the **p50 / p95 / p99** columns are over the answered"
            + " in 60 s. **VIPs answered by a model**: VIP questions whose answer, first or"
            + " upgraded, came from a model within 60 s (– where a scenario has no VIPs); ours gets"
            + " them with `\"tier\": \"VIP\"`, the naive bot and LiteLLM have no tiers and answer"
            + " them as any other. **Wasted** model calls failed, or answered a request whose"
            + " answer nobody received (answered calls beyond the model answers delivered: first"
            + " answers in 60 s and upgrades). **Duplicates** are answered calls for a question that"
            + " already had one. **Lane ledger entries after the scenario** (ours): what the lanes'"
            + " ledger in Redis still holds once no question is in progress (waiting, enqueued,"
            + " started over 60 s before, calls in flight; both lanes), which should be 0. Memory"
            + " and threads are the contestant's own processes (ours: the two apps, not the"
            + " Temporal server or Redis).\n\n");
    for (Scenario scenario : scenarios) {
      md.append("## ").append(scenario.title()).append("\n\n");
      md.append(scenario.arrivals());
      if (scenario.faultOn() != null) {
        md.append(
            String.format(
                "; the primary's fault (`%s`) from %d s to %d s (the vertical lines)",
                scenario.faultOn(), scenario.eventFrom(), scenario.eventTo()));
      }
      if (scenario.vipEvery() > 0) {
        md.append(
            String.format(
                "; every %dth question is a VIP (%.0f %%)",
                scenario.vipEvery(), 100.0 / scenario.vipEvery()));
      }
      if (scenario.upgrades()) {
        md.append(
            "; ours' back end asks for upgrades (`\"upgrade\": true`), and its questions are"
                + " collected until none is in progress, at most "
                + PeersBenchmarkIT.UPGRADE_WAIT.toMinutes()
                + " minutes after the last (the 60 s rules still read the first answer)");
      }
      md.append(".\n\n");
      md.append(HEADER);
      for (Figures f : all) {
        if (f.scenario().equals(scenario.id())) {
          md.append(row(f));
        }
      }
      if (scenario.upgrades()) {
        md.append(
            "\nThe burst's **quick answers** are its questions whose first answer was not a"
                + " model's; **upgraded** counts those a model's answer replaced within "
                + PeersBenchmarkIT.UPGRADE_COUNTED.toMinutes()
                + " minutes of their offer (ours only: the others do not upgrade). **After the"
                + " burst**: the questions offered after it, those a model answered (first or"
                + " upgraded) within 60 s, the p99 of the time from offer to that answer, beside"
                + " the p99 of the model's own latency on their calls (the fake's call log)."
                + " **Caught up**: seconds after the burst's last question until every burst"
                + " question had its first answer; the same figures for the questions offered"
                + " after that. Before it, on this 2-core machine, a new question waits for CPU"
                + " (its first workflow task) behind the burst's own first answers, whatever its"
                + " place in the model's line.\n\n");
        md.append(
            "| contestant | burst questions | quick answers | upgraded within "
                + PeersBenchmarkIT.UPGRADE_COUNTED.toMinutes()
                + " min |"
                + " after the burst | answered by a model | time to a model's answer p99 s |"
                + " model latency p99 s | caught up after s | after catching up |"
                + " answered by a model | time to a model's answer p99 s |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Figures f : all) {
          if (f.scenario().equals(scenario.id()) && f.burst() != null) {
            md.append(burstRow(f));
          }
        }
      }
      md.append("\n![")
          .append(scenario.title())
          .append("](benchmarks/peers-")
          .append(scenario.id())
          .append(".png)\n\n");
    }
    md.append("## Run it\n\n");
    md.append(
        "`bin/bench peers` (the full run above) or `bin/bench peers --quick` (scenarios a quarter"
            + " as long, to try the setup); `-Dpeers.contestants=ours,naive` runs some. It installs"
            + " LiteLLM into a virtual environment from PyPI the first time (`bench/litellm/install.sh`)"
            + " and writes `e2e/target/bench/peers.{json,md}` and the charts; the full run also"
            + " rewrites this page.\n");
    return md.toString();
  }

  private static Map<String, String> machine() {
    Map<String, String> machine = new LinkedHashMap<>();
    machine.put("date", LocalDate.now(ZoneOffset.UTC).toString());
    machine.put("cpu", procLine("/proc/cpuinfo", "model name"));
    machine.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
    String mem = procLine("/proc/meminfo", "MemTotal");
    machine.put(
        "memory",
        mem.isEmpty()
            ? "?"
            : Math.round(Long.parseLong(mem.replaceAll("[^0-9]", "")) / 1048576.0) + " GB");
    machine.put("java", System.getProperty("java.version"));
    return machine;
  }

  private static String procLine(String file, String key) {
    try {
      for (String line : Files.readAllLines(Path.of(file))) {
        if (line.startsWith(key)) {
          return line.substring(line.indexOf(':') + 1).strip();
        }
      }
    } catch (IOException e) {
      // not Linux
    }
    return "";
  }
}
