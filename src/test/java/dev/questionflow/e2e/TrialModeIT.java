package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The zero-install trial and its limits, on the packaged app: with no credential configured the
 * service listens on loopback only and lets loopback in without a key; one configured key, or a
 * non-loopback bind, ends the relaxation.
 */
class TrialModeIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static Map<String, String> noCredentials(String name) {
    Map<String, String> env = new HashMap<>();
    env.put("TASK_QUEUE", Infra.uniqueTaskQueue(name));
    env.put("CALLER_API_KEYS", "");
    env.put("STAFF_API_KEYS", "");
    env.put("ADMIN_API_KEY", "");
    return env;
  }

  private static String question() throws Exception {
    return JSON.writeValueAsString(
        Map.of(
            "sessionId",
            "s-trial",
            "userId",
            "u-trial",
            "clientMsgId",
            UUID.randomUUID().toString(),
            "text",
            "How do I top up?"));
  }

  /** This machine's first non-loopback IPv4 address, if it has one. */
  private static Optional<InetAddress> nonLoopbackAddress() throws Exception {
    return NetworkInterface.networkInterfaces()
        .filter(
            nic -> {
              try {
                return nic.isUp() && !nic.isLoopback();
              } catch (java.net.SocketException e) {
                return false;
              }
            })
        .flatMap(NetworkInterface::inetAddresses)
        .filter(address -> address instanceof Inet4Address && !address.isLoopbackAddress())
        .findFirst();
  }

  /**
   * The status code of a raw HTTP/1.1 request to 127.0.0.1 (the JDK's client will not send a Host
   * of our choice).
   */
  private static int statusOf(int port, String request) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      String statusLine =
          new java.io.BufferedReader(
                  new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      return Integer.parseInt(statusLine.split(" ")[1]);
    }
  }

  @Test
  void withoutCredentialsLoopbackAsksWithoutAKeyAndNothingElseCanConnect() throws Exception {
    try (AppProcess app = AppProcess.start("trial", noCredentials("trial"))) {
      HttpResponse<String> asked = app.send("POST", "/api/v1/questions", question());
      assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
      String workflowId = JSON.readTree(asked.body()).get("workflowId").asText();
      HttpResponse<String> status = app.send("GET", "/api/v1/questions/" + workflowId, null);
      assertThat(status.statusCode()).as(status.body()).isEqualTo(200);
      HttpResponse<String> me = app.send("GET", "/api/v1/me", null);
      JsonNode local = JSON.readTree(me.body());
      assertThat(local.get("kind").asText()).isEqualTo("LOCAL");
      assertThat(Files.readString(app.log())).contains("TRIAL MODE");
      // a web page that rebound its own host name to 127.0.0.1 (the browser sends that name as
      // Host) is not local
      int rebound =
          statusOf(
              app.port(),
              "GET /api/v1/me HTTP/1.1\r\nHost: rebound.example:"
                  + app.port()
                  + "\r\nConnection: close\r\n\r\n");
      assertThat(rebound).isEqualTo(401);
      // nor is what a tunnel or proxy on this machine relays
      assertThat(app.send("GET", "/api/v1/me", null, "X-Forwarded-For", "203.0.113.7").statusCode())
          .isEqualTo(401);

      Optional<InetAddress> outside = nonLoopbackAddress();
      assumeThat(outside).as("this machine has no non-loopback IPv4 address to try").isPresent();
      assertThatThrownBy(
              () -> {
                try (Socket socket = new Socket()) {
                  socket.connect(new InetSocketAddress(outside.get(), app.port()), 2000);
                }
              })
          .as("connect to %s:%d", outside.get().getHostAddress(), app.port())
          .isInstanceOf(ConnectException.class);
      System.out.printf(
          "[trial] loopback ask %d, status %d as %s; Host rebound.example %d; %s:%d refused the"
              + " connection%n",
          asked.statusCode(),
          status.statusCode(),
          local.get("name").asText(),
          rebound,
          outside.get().getHostAddress(),
          app.port());
    }
  }

  @Test
  void oneConfiguredKeyEndsTrialMode() throws Exception {
    Map<String, String> env = noCredentials("keyed");
    env.put("CALLER_API_KEYS", "backend-a:trial-test-key-0123456789-abcdef0123456789");
    try (AppProcess app = AppProcess.start("trial-keyed", env)) {
      HttpResponse<String> unkeyed = app.send("POST", "/api/v1/questions", question());
      assertThat(unkeyed.statusCode()).isEqualTo(401);
      assertThat(unkeyed.headers().firstValue("Content-Type"))
          .get()
          .asString()
          .contains("application/problem+json");
      assertThat(
              app.send(
                      "POST",
                      "/api/v1/questions",
                      question(),
                      "Authorization",
                      "Bearer trial-test-key-0123456789-abcdef0123456789")
                  .statusCode())
          .isEqualTo(202);
      assertThat(Files.readString(app.log())).doesNotContain("TRIAL MODE");
      System.out.printf("[trial] with CALLER_API_KEYS set: unkeyed ask %d%n", unkeyed.statusCode());
    }
  }

  @Test
  void listeningBeyondLoopbackWithoutCredentialsRefusesEveryone() throws Exception {
    Map<String, String> env = noCredentials("exposed");
    env.put("SERVER_ADDRESS", "0.0.0.0");
    try (AppProcess app = AppProcess.start("trial-exposed", env)) {
      HttpResponse<String> unkeyed = app.send("POST", "/api/v1/questions", question());
      assertThat(unkeyed.statusCode()).as("even from loopback").isEqualTo(401);
      assertThat(Files.readString(app.log()))
          .doesNotContain("TRIAL MODE")
          .contains("every API request will be refused");
      System.out.printf(
          "[trial] SERVER_ADDRESS=0.0.0.0 without credentials: loopback ask %d%n",
          unkeyed.statusCode());
    }
  }
}
