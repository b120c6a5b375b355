package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A question no FAQ answers, from the public chat page to a person and back, in a real browser
 * (system Chromium through playwright-core, e2e/browser/staff-console.mjs): the customer's page
 * (its own anonymous web session, as trial mode is off) sends it and shows the hand-over; in a
 * second browser context an agent signs in to the staff console at /staff.html with a staff API
 * key, finds the ticket, opens it and replies; the customer's page, still open, shows the reply
 * with level HUMAN as it arrives over its event stream.
 */
class StaffConsoleBrowserIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String STAFF_KEY = "staff-key-0123456789abcdef-abcdef0123456789";
  private static final String CALLER_KEY = "caller-key-a-0123456789-abcdef0123456789";
  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(90);
  private static AppProcess app;

  @BeforeAll
  static void start() throws Exception {
    Browser.checkInstalled(); // fail at once, with the install command, before starting anything
    Map<String, String> env = new HashMap<>();
    env.put("TASK_QUEUE", Infra.uniqueTaskQueue("staff"));
    // any key turns trial mode off: the page must really use its web session, the console really
    // sign in
    env.put("STAFF_API_KEYS", "alice:" + STAFF_KEY);
    env.put("CALLER_API_KEYS", "backend-a:" + CALLER_KEY);
    // no model: a question outside the FAQ becomes a ticket
    env.put("LLM_BASE_URL", "");
    // the ticket inbox in this app's memory: the shared dev Redis holds the open tickets that other
    // tests leave
    // behind, listed before ours (longest waiting first), so the console's first 100 need not show
    // ours there
    env.put("REDIS_URL", "");
    app = AppProcess.start("staff-console", env);
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(app);
  }

  @Test
  void anAgentAnswersATicketOnTheStaffConsoleAndTheCustomersPageShowsTheReplyLive()
      throws Exception {
    // both pages come from the app, open to anyone (they hold no data), with nothing from a CDN
    for (String path : new String[] {"/", "/staff.html", "/staff"}) {
      var page = app.get(path);
      assertThat(page.statusCode()).as("GET %s", path).isEqualTo(200);
      assertThat(page.body()).as("GET %s", path).doesNotContainPattern("(src|href)=\"(https?:)?//");
    }
    assertThat(app.get("/staff.html").body()).contains("id=\"staff-token\"").contains("staff.js");
    // and the data behind them is not: trial mode is off
    assertThat(app.send("GET", "/api/v1/tickets", null).statusCode()).isEqualTo(401);

    String run = UUID.randomUUID().toString().substring(0, 6);
    String question = "What is the airspeed velocity of an unladen swallow? [" + run + "]";
    String reply = "A person answers: about 11 m/s.";
    Path screenshots = Browser.screenshotDir();
    Map<String, String> env = new HashMap<>();
    env.put("BASE_URL", app.uri("").toString());
    env.put("STAFF_KEY", STAFF_KEY);
    env.put("QUESTION", question);
    env.put("REPLY", reply);
    env.put("SCREENSHOT_DIR", screenshots.toString());
    env.put("TIMEOUT_SECONDS", String.valueOf(STEP_TIMEOUT.toSeconds()));
    // five steps of up to STEP_TIMEOUT each, plus Chromium's start
    Browser.Result result =
        Browser.run("staff-console.mjs", env, STEP_TIMEOUT.multipliedBy(5).plusSeconds(60));

    assertThat(result.exitCode())
        .as("staff-console.mjs failed:%n%s%s", result.stderr(), result.stdout())
        .isZero();
    JsonNode seen = result.json();
    assertThat(seen.path("ok").asBoolean()).as("%s", seen).isTrue();
    String ticketId = seen.path("ticketId").asText();
    String workflowId = seen.path("workflowId").asText();
    System.out.printf(
        "[staff] visitor %s asked as %s; handed over after %.1f s as ticket %s (%s on the console,"
            + " %d FAQ candidates, %d recent turns); %s replied (%s); the customer's page showed it %.1f s after the"
            + " reply: %s %s%n",
        seen.path("visitorId").asText(),
        seen.at("/askedAs/userId").asText(),
        seen.path("secondsToTicket").asDouble(),
        ticketId,
        seen.path("waitingShown").asText(),
        seen.path("candidates").asInt(),
        seen.path("turns").asInt(),
        seen.path("staffName").asText(),
        seen.path("replyStatusText").asText(),
        seen.path("secondsReplyToCustomer").asDouble(),
        seen.path("level").asText(),
        seen.path("answer").asText());

    // the customer's page: its own web session, asked as its visitor, then the hand-over, then the
    // person's reply
    assertThat(seen.path("visitorId").asText()).startsWith("v-");
    assertThat(seen.at("/askedAs/userId").asText()).isEqualTo(seen.path("visitorId").asText());
    assertThat(seen.at("/askedAs/tier").isNull())
        .as("no tier sent: %s", seen.path("askedAs"))
        .isTrue();
    assertThat(seen.at("/webSessionCookie/httpOnly").asBoolean()).isTrue();
    assertThat(seen.at("/webSessionCookie/sameSite").asText()).isEqualTo("Strict");
    assertThat(seen.path("level").asText()).isEqualTo("HUMAN");
    assertThat(seen.path("answer").asText()).isEqualTo(reply);
    assertThat(seen.path("stages").toString()).contains("\"TICKETED\"").endsWith("\"ANSWERED\"]");
    assertThat(ticketId).isNotBlank();
    assertThat(seen.path("replyStatus").asInt()).isEqualTo(202);
    assertThat(seen.path("replyRequest").has("agent"))
        .as("the agent is the signed-in identity")
        .isFalse();
    assertThat(seen.path("secondsReplyToCustomer").asDouble()).isLessThan(STEP_TIMEOUT.toSeconds());

    // what the pages showed is the server's state: the question answered by a person, the ticket by
    // alice
    String staff = "Bearer " + STAFF_KEY;
    var status = app.send("GET", "/api/v1/questions/" + workflowId, null, "Authorization", staff);
    assertThat(status.statusCode()).as(status.body()).isEqualTo(200);
    assertThat(JSON.readTree(status.body()).at("/answer/level").asText()).isEqualTo("HUMAN");
    assertThat(JSON.readTree(status.body()).at("/answer/text").asText()).isEqualTo(reply);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              var ticket =
                  app.send("GET", "/api/v1/tickets/" + ticketId, null, "Authorization", staff);
              assertThat(ticket.statusCode()).as(ticket.body()).isEqualTo(200);
              JsonNode closed = JSON.readTree(ticket.body());
              assertThat(closed.path("question").asText()).isEqualTo(question);
              assertThat(closed.path("status").asText()).as("%s", closed).isEqualTo("ANSWERED");
              assertThat(closed.path("agent").asText()).isEqualTo("alice");
              assertThat(closed.path("reply").asText()).isEqualTo(reply);
            });

    for (String name : new String[] {"staff-console.png", "customer-human-answer.png"}) {
      Path shot = screenshots.resolve(name);
      assertThat(shot).isRegularFile();
      assertThat(Files.size(shot)).as(name).isGreaterThan(5_000);
      assertThat(new String(Files.readAllBytes(shot), 1, 3, StandardCharsets.US_ASCII))
          .as(name)
          .isEqualTo("PNG");
    }
  }
}
