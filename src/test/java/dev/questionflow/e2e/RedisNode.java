package dev.questionflow.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One redis-server (or sentinel) process of a test's own, with its port and folder: started, killed
 * with -9 and started again on the same folder (a cluster node keeps its nodes.conf there), and
 * asked with redis-cli.
 */
final class RedisNode implements AutoCloseable {

  private final int port;
  private final Path dir;
  private final List<String> command;
  private Process process;

  private RedisNode(int port, Path dir, List<String> command) {
    this.port = port;
    this.dir = dir;
    this.command = command;
  }

  /** A data node: no snapshots, {@code extra} redis-server arguments. */
  static RedisNode server(int port, Path dir, String... extra) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                "redis-server",
                "--port",
                String.valueOf(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--appendonly",
                "no",
                // a replica's first sync at once (Redis 7 waits 5 s for more replicas by default)
                "--repl-diskless-sync-delay",
                "0"));
    command.addAll(List.of(extra));
    return new RedisNode(port, Files.createDirectories(dir), command);
  }

  /** A sentinel (Debian ships no redis-sentinel binary: redis-server --sentinel is the same). */
  static RedisNode sentinel(int port, Path dir, String config) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve("sentinel.conf");
    Files.writeString(
        file,
        "port " + port + "\nbind 127.0.0.1\ndir " + dir + "\n" + config,
        StandardCharsets.UTF_8);
    return new RedisNode(port, dir, List.of("redis-server", file.toString(), "--sentinel"));
  }

  int port() {
    return port;
  }

  String address() {
    return "127.0.0.1:" + port;
  }

  RedisNode start() throws IOException {
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
            .start();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(() -> "PONG".equals(cli("PING")));
    return this;
  }

  /** The crash a failover is for: SIGKILL, nothing flushed. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  /** redis-cli against this node; its output, trimmed. */
  String cli(String... args) throws IOException, InterruptedException {
    List<String> full = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", "" + port));
    full.addAll(List.of(args));
    return run(full);
  }

  static String run(List<String> command) throws IOException, InterruptedException {
    Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!cli.waitFor(60, TimeUnit.SECONDS) || cli.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + out);
    }
    return out;
  }

  /** A field of INFO (e.g. {@code role}, {@code master_link_status}), or "" if absent. */
  String info(String section, String field) throws IOException, InterruptedException {
    for (String line : cli("INFO", section).split("\r?\n")) {
      if (line.startsWith(field + ":")) {
        return line.substring(field.length() + 1).strip();
      }
    }
    return "";
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  /** A free port; with {@code bus}, port + 10000 free too (a cluster node's bus port). */
  static int freePort(boolean bus) {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(20_000, 30_000);
      if (bindable(port) && (!bus || bindable(port + 10_000))) {
        return port;
      }
    }
    throw new IllegalStateException("no free port pair in 20000-30000");
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress("127.0.0.1", port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
