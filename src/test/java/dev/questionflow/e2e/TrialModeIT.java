package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The zero-install trial and its limits, on the packaged app: with no credential configured the
 * service listens on loopback only and lets in the holder of the per-start trial token (nothing
 * else, even through a forwarder on this machine, and never from another site); one configured key,
 * or a non-loopback bind, ends trial mode.
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

  private static final String NO_QUESTION = "q-" + "0".repeat(32);

  /** Paths that need a role, with a body for the POSTs (all of the API but what is public). */
  private static List<String[]> roleEndpoints() throws Exception {
    return List.of(
        new String[] {"GET", "/api/v1/me", null},
        new String[] {"POST", "/api/v1/questions", question()},
        new String[] {"GET", "/api/v1/questions/" + NO_QUESTION, null},
        new String[] {"GET", "/api/v1/questions/" + NO_QUESTION + "/events", null},
        new String[] {"GET", "/api/v1/tickets", null},
        new String[] {"GET", "/api/v1/tickets/T-none", null},
        new String[] {"POST", "/api/v1/tickets/T-none/reply", "{\"text\":\"x\"}"},
        new String[] {"GET", "/api/v1/admin/questions/stuck", null},
        new String[] {"GET", "/api/v1/admin/dead-letters", null},
        new String[] {"POST", "/api/v1/admin/dead-letters/T-none/redrive", null},
        new String[] {"POST", "/api/v1/admin/questions/" + NO_QUESTION + "/rerun", null},
        new String[] {"GET", "/api/v1/admin/questions/" + NO_QUESTION + "/history", null},
        new String[] {"GET", "/api/v1/admin/faq/changes", null},
        new String[] {"POST", "/api/v1/admin/faq/changes/987654/revert", null},
        new String[] {"POST", "/codec/decode", "{\"payloads\":[]}"},
        new String[] {"POST", "/codec/encode", "{\"payloads\":[]}"},
        new String[] {"GET", "/actuator/prometheus", null},
        new String[] {"GET", "/actuator/metrics", null},
        new String[] {"GET", "/actuator/health/dependencies", null});
  }

  /** One request through the forwarder, with this Host header and these extra headers. */
  private static RawHttp.Response through(
      Forwarder forwarder,
      String method,
      String path,
      String host,
      String body,
      String... headers) {
    StringBuilder request =
        new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n");
    request.append("Connection: close\r\n");
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    if (body != null) {
      request.append("Content-Type: application/json\r\n");
    }
    if (body != null || !method.equals("GET")) {
      request.append("Content-Length: ").append(content.length).append("\r\n");
    }
    request.append("\r\n");
    byte[] head = request.toString().getBytes(StandardCharsets.US_ASCII);
    byte[] bytes = new byte[head.length + content.length];
    System.arraycopy(head, 0, bytes, 0, head.length);
    System.arraycopy(content, 0, bytes, head.length, content.length);
    return RawHttp.exchange(forwarder.address(), bytes, 15_000);
  }

  @Test
  void throughAForwarderOnlyTheTrialTokenIsLetInAndNeverFromAnotherSite() throws Exception {
    Map<String, String> env = noCredentials("trial");
    Path dataDir = Infra.workDir().resolve("trial-data-" + UUID.randomUUID());
    env.put("DATA_DIR", dataDir.toString());
    try (AppProcess app = AppProcess.start("trial", env);
        Forwarder forwarder =
            Forwarder.start(
                nonLoopbackAddress().orElse(InetAddress.getByName("127.0.0.1")), app.port())) {
      List<String> hosts = List.of("localhost", "127.0.0.1:" + app.port());
      // every endpoint that needs a role: nobody without the token, whatever the Host header
      // (a plain TCP forwarder passes the client's own; nginx's proxy_pass sends 127.0.0.1:port)
      for (String[] endpoint : roleEndpoints()) {
        for (String host : hosts) {
          RawHttp.Response refused =
              through(forwarder, endpoint[0], endpoint[1], host, endpoint[2]);
          assertThat(refused.status())
              .as(
                  "%s %s with Host %s without the token: %s",
                  endpoint[0], endpoint[1], host, refused.bodyText())
              .isEqualTo(401);
        }
      }

      Path tokenFile = dataDir.resolve("trial-token");
      String token = Files.readString(tokenFile).trim();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile)))
          .isEqualTo("rw-------");
      assertThat(Files.readString(app.log()))
          .contains("TRIAL MODE")
          .contains("http://localhost:" + app.port() + "/?token=" + token);
      String bearer = "Bearer " + token;
      Map<String, String> withToken = new java.util.LinkedHashMap<>();
      for (String[] endpoint : roleEndpoints()) {
        RawHttp.Response allowed =
            through(
                forwarder,
                endpoint[0],
                endpoint[1],
                "localhost",
                endpoint[2],
                "Authorization",
                bearer);
        assertThat(allowed.status())
            .as("%s %s with the token: %s", endpoint[0], endpoint[1], allowed.bodyText())
            .isNotIn(401, 403)
            .isLessThan(500);
        withToken.put(endpoint[0] + " " + endpoint[1], String.valueOf(allowed.status()));
      }
      RawHttp.Response me =
          through(forwarder, "GET", "/api/v1/me", "localhost", null, "Authorization", bearer);
      assertThat(JSON.readTree(me.bodyText()).get("kind").asText()).isEqualTo("LOCAL");
      // what stays public
      for (String[] open :
          new String[][] {
            {"GET", "/"},
            {"GET", "/staff"},
            {"POST", "/api/v1/web-session"},
            {"GET", "/actuator/health"}
          }) {
        assertThat(through(forwarder, open[0], open[1], "localhost", null).status())
            .as("%s %s without the token", open[0], open[1])
            .isEqualTo(200);
      }

      // a page on another site: refused with the token, and nothing started
      String ask = question();
      RawHttp.Response crossSite =
          through(
              forwarder,
              "POST",
              "/api/v1/questions",
              "localhost:" + app.port(),
              ask,
              "Authorization",
              bearer,
              "Origin",
              "https://evil.example",
              "Sec-Fetch-Site",
              "cross-site");
      assertThat(crossSite.status()).as(crossSite.bodyText()).isEqualTo(403);
      assertThat(crossSite.header("content-type")).contains("application/problem+json");
      RawHttp.Response crossSiteByCookie =
          through(
              forwarder,
              "POST",
              "/api/v1/questions",
              "localhost:" + app.port(),
              ask,
              "Cookie",
              "qf_trial=" + token,
              "Origin",
              "https://evil.example",
              "Sec-Fetch-Site",
              "cross-site");
      assertThat(crossSiteByCookie.status()).isEqualTo(403);
      RawHttp.Response sameQuestion =
          through(
              forwarder, "POST", "/api/v1/questions", "localhost", ask, "Authorization", bearer);
      assertThat(sameQuestion.status()).as(sameQuestion.bodyText()).isEqualTo(202);
      assertThat(JSON.readTree(sameQuestion.bodyText()).get("duplicate").asBoolean())
          .as("the refused cross-site asks started no workflow")
          .isFalse();
      RawHttp.Response crossSiteRevert =
          through(
              forwarder,
              "POST",
              "/api/v1/admin/faq/changes/987654/revert",
              "localhost",
              null,
              "Cookie",
              "qf_trial=" + token,
              "Origin",
              "http://localhost:3000");
      assertThat(crossSiteRevert.status()).as("another port is another origin").isEqualTo(403);

      // the printed URL: the token becomes a cookie and leaves the address bar
      RawHttp.Response link = through(forwarder, "GET", "/?token=" + token, "localhost", null);
      assertThat(link.status()).isEqualTo(303);
      assertThat(link.header("location")).isEqualTo("/");
      assertThat(link.header("set-cookie"))
          .contains("qf_trial=" + token)
          .contains("HttpOnly")
          .contains("SameSite=Strict")
          .contains("Path=/");
      RawHttp.Response staffLink =
          through(forwarder, "GET", "/staff?token=" + token, "localhost", null);
      assertThat(staffLink.status()).isEqualTo(303);
      assertThat(staffLink.header("location")).isEqualTo("/staff");
      RawHttp.Response wrongLink =
          through(forwarder, "GET", "/staff?token=" + "A".repeat(43), "localhost", null);
      assertThat(wrongLink.status()).isEqualTo(303);
      assertThat(wrongLink.header("set-cookie")).doesNotContain("qf_trial=");
      assertThat(
              through(
                      forwarder,
                      "GET",
                      "/api/v1/tickets",
                      "localhost",
                      null,
                      "Cookie",
                      "qf_trial=" + token)
                  .status())
          .as("the cookie is local")
          .isEqualTo(200);
      assertThat(
              through(
                      forwarder,
                      "GET",
                      "/api/v1/tickets",
                      "localhost",
                      null,
                      "Cookie",
                      "qf_trial=" + token,
                      "Origin",
                      "https://evil.example",
                      "Sec-Fetch-Site",
                      "cross-site")
                  .status())
          .as("not from another site")
          .isEqualTo(403);

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
          "[trial] through a forwarder on %s: %d endpoints x %s without the token 401; with it %s;"
              + " cross-site POST %d (then the same ask: duplicate=false); ?token= %d to %s%n",
          forwarder.address(),
          roleEndpoints().size(),
          hosts,
          withToken,
          crossSite.status(),
          link.status(),
          link.header("location"));
    }
  }

  @Test
  void inABrowserThePrintedUrlsOpenTheChatPageAndTheConsoleWithoutAKey() throws Exception {
    Browser.checkInstalled(); // fail at once, with the install command, before starting anything
    Map<String, String> env = noCredentials("trial-browser");
    Path dataDir = Infra.workDir().resolve("trial-data-" + UUID.randomUUID());
    env.put("DATA_DIR", dataDir.toString());
    env.put("LLM_BASE_URL", ""); // no model: a question outside the FAQ becomes a ticket
    env.put("REDIS_URL", ""); // this app's own inbox: the console lists our ticket, not others'
    try (AppProcess app = AppProcess.start("trial-browser", env)) {
      String token = Files.readString(dataDir.resolve("trial-token")).trim();
      String run = UUID.randomUUID().toString().substring(0, 6);
      Map<String, String> script = new HashMap<>();
      script.put("BASE_URL", app.uri("").toString());
      script.put("TRIAL_TOKEN", token);
      script.put("QUESTION", "What is the airspeed velocity of an unladen swallow? [" + run + "]");
      script.put("REPLY", "A person answers in trial mode.");
      script.put("SCREENSHOT_DIR", Browser.screenshotDir().resolve("trial").toString());
      script.put("TIMEOUT_SECONDS", "90");
      Browser.Result result =
          Browser.run("staff-console.mjs", script, Duration.ofSeconds(90 * 5 + 60));
      assertThat(result.exitCode())
          .as("staff-console.mjs in trial mode failed:%n%s%s", result.stderr(), result.stdout())
          .isZero();
      JsonNode seen = result.json();
      assertThat(seen.path("ok").asBoolean()).as("%s", seen).isTrue();
      assertThat(seen.path("staffName").asText()).isEqualTo("local");
      assertThat(seen.path("level").asText()).isEqualTo("HUMAN");
      assertThat(seen.at("/trialCookie/httpOnly").asBoolean()).isTrue();
      System.out.printf(
          "[trial] browser: /?token= and /staff?token= redirected and set %s; the console signed in"
              + " as %s by itself; the customer's page showed the reply at level %s%n",
          seen.path("trialCookie"), seen.path("staffName").asText(), seen.path("level").asText());
    }
  }

  /**
   * A plain TCP forwarder, as socat, {@code ssh -R} or {@code kubectl port-forward} are: bytes both
   * ways to the app's 127.0.0.1 port, so the app sees a loopback peer and the client's own Host.
   */
  static final class Forwarder implements AutoCloseable {

    private final ServerSocket server;
    private final int target;

    private Forwarder(ServerSocket server, int target) {
      this.server = server;
      this.target = target;
    }

    static Forwarder start(InetAddress address, int target) throws IOException {
      Forwarder forwarder = new Forwarder(new ServerSocket(0, 50, address), target);
      Thread accept = new Thread(forwarder::accept, "forwarder-accept");
      accept.setDaemon(true);
      accept.start();
      return forwarder;
    }

    InetSocketAddress address() {
      return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket client = server.accept();
          Socket app = new Socket("127.0.0.1", target);
          pump(client, app, false);
          pump(app, client, true);
        } catch (IOException closed) {
          return;
        }
      }
    }

    /** Copies until end of stream, then half-closes; the app's side ending closes both. */
    private static void pump(Socket from, Socket to, boolean last) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  from.getInputStream().transferTo(to.getOutputStream());
                  to.shutdownOutput();
                } catch (IOException ignored) {
                  // the other side went away: nothing to relay
                } finally {
                  if (last) {
                    closeQuietly(from);
                    closeQuietly(to);
                  }
                }
              },
              "forwarder-pump");
      thread.setDaemon(true);
      thread.start();
    }

    private static void closeQuietly(Socket socket) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
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
