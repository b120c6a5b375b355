package dev.questionflow.activities.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of a test's own (from PATH, on a free port, its files in a directory of the
 * test's), for what must not touch the Redis other tests share: moving every legacy key, stopping a
 * replica. Where redis-server is missing the test is skipped ({@link TestRedis#unavailable}).
 */
public final class RedisProcess implements AutoCloseable {

  private final Process process;
  private final int port;

  private RedisProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts one and waits until it answers PING; {@code extra}: more redis-server arguments. */
  public static RedisProcess start(Path dir, String... extra) {
    try {
      Files.createDirectories(dir);
      int port = freePort();
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
                  "no"));
      command.addAll(List.of(extra));
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("redis-" + port + ".log").toFile())
              .start();
      RedisProcess redis = new RedisProcess(process, port);
      redis.awaitPong(Duration.ofSeconds(10));
      return redis;
    } catch (IOException | IllegalStateException e) {
      TestRedis.unavailable(e);
      throw new IllegalStateException("unreachable", e);
    }
  }

  public int port() {
    return port;
  }

  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  private void awaitPong(Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end) {
      if (!process.isAlive()) {
        throw new IllegalStateException("redis-server exited with " + process.exitValue());
      }
      try (Socket socket = new Socket("127.0.0.1", port)) {
        socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] reply = new byte[7];
        if (socket.getInputStream().read(reply) > 0
            && new String(reply, StandardCharsets.US_ASCII).startsWith("+PONG")) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("redis-server on " + port + " did not answer PING");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
