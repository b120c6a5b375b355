package dev.questionflow.activities.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.questionflow.activities.testing.TestCertificates;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rediss://} against a real redis-server listening with TLS only (certificates made with
 * openssl for the run): the private CA given, commands work; without it, the server's certificate
 * is refused. Skipped where redis-server or openssl is missing, failed under CI=true.
 */
class LazyRedisTlsTest {

  @TempDir static Path dir;
  private static Process server;
  private static int port;

  @BeforeAll
  static void startTlsRedis() throws Exception {
    try {
      TestCertificates certificates = TestCertificates.newCa(dir);
      certificates.sign("redis", "DNS:localhost,IP:127.0.0.1");
      try (ServerSocket socket = new ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      server =
          new ProcessBuilder(
                  "redis-server",
                  "--port",
                  "0",
                  "--tls-port",
                  String.valueOf(port),
                  "--tls-cert-file",
                  "redis.pem",
                  "--tls-key-file",
                  "redis.key",
                  "--tls-ca-cert-file",
                  "ca.pem",
                  "--tls-auth-clients",
                  "no",
                  "--bind",
                  "127.0.0.1",
                  "--save",
                  "",
                  "--appendonly",
                  "no")
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("redis.log").toFile())
              .start();
      awaitListening();
    } catch (IOException | IllegalStateException | ConditionTimeoutException e) {
      dev.questionflow.activities.testing.TestRedis.unavailable(e);
    }
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (server != null) {
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void redissWithThePrivateCaWorks() {
    try (LazyRedis redis =
        new LazyRedis(
            "rediss://localhost:" + port,
            Duration.ofSeconds(3),
            Duration.ofMillis(10),
            dir.resolve("ca.pem"))) {
      assertThat(redis.get().ping()).isEqualTo("PONG");
      redis.get().set("tls-check", "sealed in transit");
      assertThat(redis.get().get("tls-check")).isEqualTo("sealed in transit");
    }
  }

  @Test
  void redissRefusesAServerItCannotVerify() {
    try (LazyRedis redis =
        new LazyRedis("rediss://localhost:" + port, Duration.ofSeconds(3), Duration.ofMillis(10))) {
      assertThatThrownBy(() -> redis.get().ping()).isInstanceOf(RuntimeException.class);
    }
    // and plain text to the TLS port gets nowhere either
    try (LazyRedis plain =
        new LazyRedis("redis://localhost:" + port, Duration.ofSeconds(2), Duration.ofMillis(10))) {
      assertThatThrownBy(() -> plain.get().ping()).isInstanceOf(RuntimeException.class);
    }
  }

  private static void awaitListening() {
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptionsInstanceOf(IOException.class) // not listening yet
        .until(
            () -> {
              if (!server.isAlive()) {
                throw new IllegalStateException("redis-server exited: " + log());
              }
              try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
                return true;
              }
            });
  }

  private static String log() {
    try {
      return Files.readString(dir.resolve("redis.log"));
    } catch (IOException e) {
      return e.toString();
    }
  }
}
