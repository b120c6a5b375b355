package dev.questionflow.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the browser scripts of e2e/browser (node + playwright-core driving the system Chromium) as
 * processes: their stderr (progress) and stdout (one JSON line) go to this test's output, which
 * Surefire keeps in {@code target/surefire-reports/*-output.txt}. Screenshots go to
 * e2e/target/screenshots.
 *
 * <p>Node, the scripts' node_modules and Chromium are required, not optional: a missing one fails
 * the test with the command that installs it (.ci/run installs all three).
 */
final class Browser {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What a script did: its exit code, its output and the JSON line it printed (an empty object if
   * none).
   */
  record Result(int exitCode, String stdout, String stderr, JsonNode json, Duration took) {}

  private Browser() {}

  static Path scriptsDir() {
    return Infra.repoRoot().resolve("e2e").resolve("browser");
  }

  /** e2e/target/screenshots (Surefire runs the tests in the e2e module's folder). */
  static Path screenshotDir() throws IOException {
    return Files.createDirectories(
        Infra.repoRoot().resolve("e2e").resolve("target").resolve("screenshots"));
  }

  static Path chromium() {
    String configured = System.getenv("CHROMIUM_PATH");
    return Path.of(configured == null || configured.isBlank() ? "/usr/bin/chromium" : configured);
  }

  /** The node binary: $NODE_BINARY, else the first node on the PATH. */
  static Path node() {
    String configured = System.getenv("NODE_BINARY");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured);
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, "node");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "node is not on the PATH (set NODE_BINARY); the browser tests need Node.js 18+ (Debian: apt-get install nodejs npm)");
  }

  /** Fails with the install command when something the scripts need is missing. */
  static void checkInstalled() {
    node();
    Path playwright =
        scriptsDir().resolve("node_modules").resolve("playwright-core").resolve("package.json");
    if (!Files.exists(playwright)) {
      throw new IllegalStateException(
          "playwright-core is not installed in "
              + scriptsDir().resolve("node_modules")
              + ": run `PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix e2e/browser` in the repository root"
              + " (.ci/run does)");
    }
    if (!Files.isExecutable(chromium())) {
      throw new IllegalStateException(
          "Chromium is missing at "
              + chromium()
              + ": run `apt-get install -y chromium` (Debian; .ci/run does) or set"
              + " CHROMIUM_PATH. The scripts never download a browser.");
    }
  }

  /**
   * e2e/browser/chat-page.mjs: sends the question on the app's chat page and waits for the answer.
   *
   * @param expectPositionChange the script fails unless the page showed at least two different
   *     queue positions
   */
  static Result chatPage(
      String baseUrl,
      String question,
      Path screenshot,
      boolean expectPositionChange,
      Duration timeout) {
    Map<String, String> env = new HashMap<>();
    env.put("BASE_URL", baseUrl);
    env.put("QUESTION", question);
    env.put("SCREENSHOT", screenshot.toString());
    env.put("EXPECT_POSITION_CHANGE", expectPositionChange ? "1" : "0");
    env.put("TIMEOUT_SECONDS", String.valueOf(timeout.toSeconds()));
    return run("chat-page.mjs", env, timeout.plusSeconds(60));
  }

  /**
   * e2e/browser/temporal-ui.mjs: opens the Web UI's workflow list for {@code query}, waits for
   * {@code workflowId}, then the workflow's page (screenshot {@code <name>-detail.png}).
   *
   * @param expectDetailsText text the workflow page must show as its current details, or null; a UI
   *     version that renders no current details reports {@code "detailsRendered": false} instead of
   *     failing
   * @param codec the app whose codec endpoint decodes the payloads (with the staff key)
   */
  static Result temporalUi(
      String uiUrl,
      String namespace,
      String query,
      String workflowId,
      Path screenshot,
      String expectDetailsText,
      AppProcess codec,
      Duration timeout) {
    Map<String, String> env = new HashMap<>();
    env.put("UI_URL", uiUrl);
    env.put("NAMESPACE", namespace);
    env.put("QUERY", query);
    // payloads, summaries and details are encrypted: the UI reads them through the app's codec, as
    // staff
    env.put("CODEC_ENDPOINT", "http://127.0.0.1:" + codec.port() + "/codec");
    env.put("STAFF_TOKEN", AppProcess.STAFF_KEY);
    env.put("WORKFLOW_ID", workflowId);
    env.put("SCREENSHOT", screenshot.toString());
    env.put("TIMEOUT_SECONDS", String.valueOf(timeout.toSeconds()));
    if (expectDetailsText != null) {
      env.put("EXPECT_DETAILS_TEXT", expectDetailsText);
    }
    // the list and the workflow page wait up to `timeout` each
    return run("temporal-ui.mjs", env, timeout.multipliedBy(3).plusSeconds(60));
  }

  /**
   * e2e/browser/temporal-ui-codec.mjs: opens the workflow's page in the Web UI with the app's codec
   * endpoint, with a staff token on the codec calls or none, and reports whether the decoded input
   * showed {@code expectText}.
   */
  static Result temporalUiCodec(
      String uiUrl,
      String namespace,
      String workflowId,
      String codecEndpoint,
      String staffToken,
      String expectText,
      Path screenshot,
      Duration timeout) {
    Map<String, String> env = new HashMap<>();
    env.put("UI_URL", uiUrl);
    env.put("NAMESPACE", namespace);
    env.put("WORKFLOW_ID", workflowId);
    env.put("CODEC_ENDPOINT", codecEndpoint);
    env.put("STAFF_TOKEN", staffToken);
    env.put("EXPECT_TEXT", expectText);
    env.put("SCREENSHOT", screenshot.toString());
    env.put("TIMEOUT_SECONDS", String.valueOf(timeout.toSeconds()));
    return run("temporal-ui-codec.mjs", env, timeout.plusSeconds(90));
  }

  /**
   * Runs one script of e2e/browser with the given environment; kills it (and its Chromium) after
   * the timeout.
   */
  static Result run(String script, Map<String, String> env, Duration timeout) {
    checkInstalled();
    List<String> command = List.of(node().toString(), script);
    ProcessBuilder builder = new ProcessBuilder(command).directory(scriptsDir().toFile());
    builder.environment().putAll(env);
    builder.environment().put("CHROMIUM_PATH", chromium().toString());
    builder.environment().put("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
    String tag = "[browser " + script + "] ";
    System.out.println(tag + "running node " + script + " with " + env);
    long start = System.nanoTime();
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command, e);
    }
    StringBuilder out = new StringBuilder();
    StringBuilder err = new StringBuilder();
    Thread outPump = pump(process.getInputStream(), out, tag + "out: ");
    Thread errPump = pump(process.getErrorStream(), err, tag);
    boolean finished;
    try {
      finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!finished) {
        process.descendants().forEach(ProcessHandle::destroyForcibly); // Chromium and its helpers
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
      outPump.join(5000);
      errPump.join(5000);
    } catch (InterruptedException e) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + script, e);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    int exit = finished ? process.exitValue() : -1;
    System.out.println(
        tag
            + (finished ? "exited with " + exit : "killed after " + timeout)
            + " in "
            + took.toMillis()
            + " ms");
    String stdout;
    String stderr;
    synchronized (out) {
      stdout = out.toString();
    }
    synchronized (err) {
      stderr = err.toString();
    }
    return new Result(exit, stdout, stderr, lastJsonLine(stdout), took);
  }

  private static Thread pump(InputStream stream, StringBuilder into, String prefix) {
    Thread thread =
        new Thread(
            () -> {
              try (BufferedReader reader =
                  new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                  System.out.println(prefix + line);
                  synchronized (into) {
                    into.append(line).append('\n');
                  }
                }
              } catch (IOException e) {
                System.out.println(prefix + "(output ended: " + e + ")");
              }
            },
            "browser-output");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static JsonNode lastJsonLine(String stdout) {
    List<String> lines =
        new ArrayList<>(stdout.lines().map(String::strip).filter(l -> l.startsWith("{")).toList());
    for (int i = lines.size() - 1; i >= 0; i--) {
      try {
        return JSON.readTree(lines.get(i));
      } catch (IOException notJson) {
        // keep looking
      }
    }
    return JSON.createObjectNode();
  }
}
