package dev.questionflow.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real OpenTelemetry Collector process (built by {@code bin/otelcol} from
 * ops/otelcol/builder.yaml, cached): OTLP/HTTP in, the batch processor, OTLP/HTTP (protobuf) out to
 * {@code exportTo}. The app sends its spans here as it would to an operator's collector.
 */
final class OtelCollector implements AutoCloseable {

  private final Process process;
  private final int port;
  private final Path log;

  private OtelCollector(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * @param exportTo the OTLP/HTTP traces endpoint the collector forwards to
   */
  static OtelCollector start(String exportTo) throws Exception {
    Path binary = Path.of(build());
    int port = AppProcess.freePort();
    Path config = Infra.workDir().resolve("otelcol-" + port + ".yaml");
    Files.writeString(
        config,
        """
        receivers:
          otlp:
            protocols:
              http:
                endpoint: 127.0.0.1:%d
        processors:
          batch:
            timeout: 200ms
        exporters:
          otlphttp:
            traces_endpoint: %s
            compression: none
            encoding: proto
        service:
          telemetry:
            metrics:
              level: none
          pipelines:
            traces:
              receivers: [otlp]
              processors: [batch]
              exporters: [otlphttp]
        """
            .formatted(port, exportTo));
    Path log = Infra.workDir().resolve("otelcol-" + port + ".log");
    Process process =
        new ProcessBuilder(binary.toString(), "--config", "file:" + config)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    OtelCollector collector = new OtelCollector(process, port, log);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new IllegalStateException("the collector exited: " + Files.readString(log));
                }
                try (Socket ignored = new Socket("127.0.0.1", port)) {
                  return true;
                } catch (IOException notYet) {
                  return false;
                }
              });
    } catch (RuntimeException e) {
      collector.close();
      throw e;
    }
    return collector;
  }

  /** bin/otelcol: the binary's path, built first when the cache has none (minutes, once). */
  private static String build() throws Exception {
    Process build =
        new ProcessBuilder(List.of(Infra.repoRoot().resolve("bin/otelcol").toString()))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String path = new String(build.getInputStream().readAllBytes()).strip();
    if (!build.waitFor(20, TimeUnit.MINUTES) || build.exitValue() != 0) {
      throw new IllegalStateException("bin/otelcol failed: the Collector could not be built");
    }
    return path;
  }

  /** Where the app sends its spans (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). */
  String endpoint() {
    return "http://127.0.0.1:" + port + "/v1/traces";
  }

  Path log() {
    return log;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
