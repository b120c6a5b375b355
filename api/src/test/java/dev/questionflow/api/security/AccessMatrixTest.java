package dev.questionflow.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.activities.ticket.Ticket;
import dev.questionflow.activities.ticket.TicketInbox;
import dev.questionflow.api.question.WorkflowIds;
import dev.questionflow.workflows.question.Question.Tier;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import jakarta.servlet.http.Cookie;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.context.NestedTestConfiguration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * Every endpoint against every kind of requester, on the embedded default with keys configured (so
 * trial mode is off): the expected status of each cell, and nothing changed by a refused request.
 * Then the hostile cases.
 */
@AccessMatrixContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AccessMatrixTest {

  static final String KEY_A = "key-a-0123456789abcdef-abcdef0123456789";
  static final String KEY_B = "key-b-0123456789abcdef-abcdef0123456789";
  static final String KEY_VIP = "key-vip-0123456789abcdef-abcdef0123456789";
  static final String KEY_STAFF = "staff-0123456789abcdef-abcdef0123456789";
  static final String KEY_ADMIN = "admin-0123456789abcdef-abcdef0123456789";
  static final String KEY_METRICS = "metrics-0123456789abcdef-abcdef0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();

  enum Who {
    NOBODY,
    CALLER_A,
    CALLER_B,
    VISITOR,
    STAFF,
    ADMIN,
    /** Prometheus with METRICS_API_KEY */
    METRICS
  }

  @Autowired MockMvc mvc;
  @Autowired WorkflowClient client;
  @Autowired WorkflowIds ids;
  @Autowired TicketInbox inbox;

  private Cookie visitorCookie;
  private String visitorId;
  private String answeredOfA;
  private final List<String> ticketsOfA = new ArrayList<>();

  @BeforeAll
  void setUp() throws Exception {
    MockHttpServletResponse session =
        mvc.perform(post("/api/v1/web-session")).andReturn().getResponse();
    assertThat(session.getStatus()).isEqualTo(200);
    visitorCookie = session.getCookie(WebSessions.COOKIE);
    assertThat(visitorCookie).isNotNull();
    assertThat(visitorCookie.isHttpOnly()).isTrue();
    assertThat(session.getHeader("Set-Cookie")).contains("SameSite=Strict");
    visitorId = JSON.readTree(session.getContentAsString()).get("visitorId").asText();

    answeredOfA =
        accepted(ask(Who.CALLER_A, "u-a", "s-a", "m1", "I still have not received my new card"));
    awaitStage(answeredOfA, "ANSWERED");
    for (int i = 0; i < 2; i++) {
      String workflowId =
          accepted(
              ask(
                  Who.CALLER_A,
                  "u-a",
                  "s-t" + i,
                  "m1",
                  "What is the airspeed velocity of an unladen swallow?"));
      ticketsOfA.add(awaitStage(workflowId, "TICKETED").at("/answer/ticketId").asText());
    }
  }

  private MockHttpServletRequestBuilder as(Who who, MockHttpServletRequestBuilder request) {
    return switch (who) {
      case NOBODY -> request;
      case CALLER_A -> request.header("Authorization", "Bearer " + KEY_A);
      case CALLER_B -> request.header("Authorization", "Bearer " + KEY_B);
      case VISITOR -> request.cookie(visitorCookie);
      case STAFF -> request.header("Authorization", "Bearer " + KEY_STAFF);
      case ADMIN -> request.header("Authorization", "Bearer " + KEY_ADMIN);
      case METRICS -> request.header("Authorization", "Bearer " + KEY_METRICS);
    };
  }

  private MockHttpServletResponse ask(Who who, String user, String session, String msg, String text)
      throws Exception {
    return askAs(
        who,
        "{\"sessionId\":\""
            + session
            + "\",\"userId\":\""
            + user
            + "\",\"clientMsgId\":\""
            + msg
            + "\",\"text\":\""
            + text
            + "\"}");
  }

  private MockHttpServletResponse askAs(Who who, String body) throws Exception {
    return mvc.perform(
            as(
                who,
                post("/api/v1/questions").contentType(MediaType.APPLICATION_JSON).content(body)))
        .andReturn()
        .getResponse();
  }

  private static String accepted(MockHttpServletResponse response) throws Exception {
    assertThat(response.getStatus()).as(response.getContentAsString()).isEqualTo(202);
    return JSON.readTree(response.getContentAsString()).get("workflowId").asText();
  }

  private JsonNode awaitStage(String workflowId, String stage) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              MockHttpServletResponse response =
                  mvc.perform(as(Who.CALLER_A, get("/api/v1/questions/" + workflowId)))
                      .andReturn()
                      .getResponse();
              last[0] = JSON.readTree(response.getContentAsString());
              assertThat(last[0].path("stage").asText()).isEqualTo(stage);
            });
    return last[0];
  }

  private int status(Who who, MockHttpServletRequestBuilder request) throws Exception {
    return mvc.perform(as(who, request)).andReturn().getResponse().getStatus();
  }

  private void assertRow(
      String endpoint, Function<Who, MockHttpServletRequestBuilder> request, int... expected)
      throws Exception {
    Map<Who, Integer> actual = new EnumMap<>(Who.class);
    Map<Who, Integer> wanted = new EnumMap<>(Who.class);
    for (Who who : Who.values()) {
      actual.put(who, status(who, request.apply(who)));
      wanted.put(who, expected[who.ordinal()]);
    }
    assertThat(actual).as(endpoint).isEqualTo(wanted);
  }

  private String runId(String workflowId) {
    return client.newUntypedWorkflowStub(workflowId).describe().getExecution().getRunId();
  }

  @Test
  void everyEndpointAnswersEachKindOfRequesterAsExpected() throws Exception {
    String ticket = ticketsOfA.get(0);
    String runBefore = runId(answeredOfA);
    //                          NOBODY CALLER_A CALLER_B VISITOR STAFF ADMIN METRICS
    assertRow(
        "GET question",
        who -> get("/api/v1/questions/" + answeredOfA),
        401,
        200,
        404,
        404,
        200,
        200,
        403);
    assertRow(
        "GET events",
        who -> get("/api/v1/questions/" + answeredOfA + "/events"),
        401,
        200,
        404,
        404,
        200,
        200,
        403);
    assertRow("GET tickets", who -> get("/api/v1/tickets"), 401, 403, 403, 403, 200, 200, 403);
    assertRow(
        "GET ticket", who -> get("/api/v1/tickets/" + ticket), 401, 403, 403, 403, 200, 200, 403);
    assertRow("GET me", who -> get("/api/v1/me"), 401, 200, 200, 200, 200, 200, 403);
    // the Web UI's codec: staff and admins; the chat page's cookie counts on /api/ only
    assertRow(
        "POST codec decode",
        who ->
            post("/codec/decode")
                .header("X-Namespace", "default")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"payloads\":[]}"),
        401,
        403,
        403,
        401,
        200,
        200,
        403);
    // the in-process test server has no visibility store: the admin's 501 says the request got
    // through
    assertRow(
        "GET admin dead letters",
        who -> get("/api/v1/admin/dead-letters"),
        401,
        403,
        403,
        403,
        403,
        501,
        403);
    assertRow(
        "GET admin FAQ changes",
        who -> get("/api/v1/admin/faq/changes"),
        401,
        403,
        403,
        403,
        403,
        200,
        403);
    // the admin's 404 on a version that does not exist says the request got through
    assertRow(
        "POST admin FAQ change revert",
        who -> post("/api/v1/admin/faq/changes/987654/revert"),
        401,
        403,
        403,
        403,
        403,
        404,
        403);
    assertRow(
        "GET admin history",
        who -> get("/api/v1/admin/questions/" + answeredOfA + "/history"),
        401,
        403,
        403,
        403,
        403,
        200,
        403);
    // the admin's cell on an unknown question (404: it got through), everybody else's on a real one
    // (refused)
    assertRow(
        "POST admin rerun",
        who ->
            post("/api/v1/admin/questions/"
                    + (who == Who.ADMIN ? "q-" + "0".repeat(32) : answeredOfA)
                    + "/rerun")
                .param("from", "START"),
        401,
        403,
        403,
        403,
        403,
        404,
        403);
    assertThat(runId(answeredOfA)).as("no refused re-run reset the question").isEqualTo(runBefore);
    // no Redis here: the admin's 409 (nothing stored to reseal) says the request got through
    assertRow(
        "POST admin reseal",
        who -> post("/api/v1/admin/stored-text/reseal"),
        401,
        403,
        403,
        403,
        403,
        409,
        403);
    // the chat page's session cookie counts on the API only: on the actuator a visitor is nobody
    assertRow(
        "GET prometheus", who -> get("/actuator/prometheus"), 401, 403, 403, 401, 403, 200, 200);
    assertRow("GET metrics", who -> get("/actuator/metrics"), 401, 403, 403, 401, 403, 200, 403);
    assertRow(
        "GET readiness",
        who -> get("/actuator/health/readiness"),
        200,
        200,
        200,
        200,
        200,
        200,
        200);
    assertRow(
        "GET liveness", who -> get("/actuator/health/liveness"), 200, 200, 200, 200, 200, 200, 200);
    assertRow(
        "POST web session", who -> post("/api/v1/web-session"), 200, 200, 200, 200, 200, 200, 200);
    assertRow("GET chat page", who -> get("/"), 200, 200, 200, 200, 200, 200, 200);
    // the container's error dispatch target, asked for directly: nothing there
    assertRow("GET error page", who -> get("/error"), 404, 404, 404, 404, 404, 404, 404);
    assertRow("GET api docs (off)", who -> get("/v3/api-docs"), 404, 404, 404, 404, 404, 404, 404);
    assertRow("GET staff console", who -> get("/staff"), 200, 200, 200, 200, 200, 200, 200);
    assertRow(
        "GET pages' shared script", who -> get("/problem.js"), 200, 200, 200, 200, 200, 200, 200);
    assertRow(
        "GET console scripts", who -> get("/staff-view.js"), 200, 200, 200, 200, 200, 200, 200);
    assertRow(
        "GET console sign-in", who -> get("/staff-signin.js"), 200, 200, 200, 200, 200, 200, 200);
  }

  @Test
  void askingIsForCallersOnlyAndARefusedAskStartsNothing() throws Exception {
    String msg = "m-" + UUID.randomUUID();
    Map<Who, Integer> actual = new EnumMap<>(Who.class);
    for (Who who : Who.values()) {
      String user = who == Who.VISITOR ? visitorId : "u-" + who;
      actual.put(who, ask(who, user, "s-ask", msg, "How do I top up?").getStatus());
    }
    assertThat(actual)
        .isEqualTo(
            Map.of(
                Who.NOBODY,
                401,
                Who.CALLER_A,
                202,
                Who.CALLER_B,
                202,
                Who.VISITOR,
                202,
                Who.STAFF,
                403,
                Who.ADMIN,
                403,
                Who.METRICS,
                403));
    for (Requester refused :
        List.of(
            Requester.staff("alice"), Requester.admin("admin"), Requester.metrics("prometheus"))) {
      String wouldBe = ids.forMessage(refused, "u-" + refused.kind(), "s-ask", msg);
      assertThatThrownBy(() -> client.newUntypedWorkflowStub(wouldBe).describe())
          .as("no workflow for the refused ask of %s", refused.name())
          .isInstanceOf(WorkflowNotFoundException.class);
    }
  }

  @Test
  void onlyStaffRepliesToTicketsAndTheAgentIsTheSignedInIdentity() throws Exception {
    String ticket = ticketsOfA.get(0);
    String body = "{\"text\":\"A person answers.\"}";
    Function<Who, MockHttpServletRequestBuilder> reply =
        who ->
            post("/api/v1/tickets/" + ticket + "/reply")
                .contentType(MediaType.APPLICATION_JSON)
                .content(body);
    for (Who who : List.of(Who.NOBODY, Who.CALLER_A, Who.CALLER_B, Who.VISITOR, Who.METRICS)) {
      assertThat(status(who, reply.apply(who)))
          .as("reply by %s", who)
          .isEqualTo(who == Who.NOBODY ? 401 : 403);
    }
    assertThat(inbox.find(ticket))
        .get()
        .extracting(Ticket::status)
        .as("refused replies changed nothing")
        .isEqualTo(Ticket.Status.OPEN);

    // an agent field is not the client's to choose: the body is strict
    assertThat(
            status(
                Who.STAFF,
                post("/api/v1/tickets/" + ticket + "/reply")
                    .contentType(MediaType.APPLICATION_JSON)
                    .content("{\"agent\":\"mallory\",\"text\":\"x\"}")))
        .isEqualTo(400);
    assertThat(status(Who.STAFF, reply.apply(Who.STAFF))).isEqualTo(202);
    JsonNode answered = awaitStage(inboxWorkflow(ticket), "ANSWERED");
    assertThat(answered.at("/answer/level").asText()).isEqualTo("HUMAN");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(inbox.find(ticket)).get().extracting(Ticket::agent).isEqualTo("alice"));
    assertThat(
            status(
                Who.ADMIN,
                post("/api/v1/tickets/" + ticketsOfA.get(1) + "/reply")
                    .contentType(MediaType.APPLICATION_JSON)
                    .content(body)))
        .as("admins are staff too")
        .isEqualTo(202);
  }

  private String inboxWorkflow(String ticketId) {
    return inbox.find(ticketId).orElseThrow().workflowId();
  }

  @Test
  void hostileReadingAnotherCallersQuestionByItsIdIsNotFound() throws Exception {
    MockHttpServletResponse response =
        mvc.perform(as(Who.CALLER_B, get("/api/v1/questions/" + answeredOfA)))
            .andReturn()
            .getResponse();
    assertThat(response.getStatus()).isEqualTo(404);
    assertThat(response.getContentType()).contains("application/problem+json");
    assertThat(response.getContentAsString()).doesNotContain("card");
  }

  @Test
  void hostileGuessingAnIdFromSessionAndMessageIdFindsNothing() throws Exception {
    // the old derivation: SHA-256 of session and message ID, which any customer could compute
    String unkeyed =
        "q-"
            + HexFormat.of()
                .formatHex(
                    MessageDigest.getInstance("SHA-256")
                        .digest("s-a\nm1".getBytes(StandardCharsets.UTF_8)),
                    0,
                    16);
    assertThat(unkeyed).isNotEqualTo(answeredOfA);
    for (Who who : List.of(Who.CALLER_A, Who.CALLER_B, Who.STAFF)) {
      assertThat(status(who, get("/api/v1/questions/" + unkeyed)))
          .as("unkeyed guess by %s", who)
          .isEqualTo(404);
    }
    // the same message of the same user through another caller is another question
    String sameMessageOfB =
        accepted(ask(Who.CALLER_B, "u-a", "s-a", "m1", "I still have not received my new card"));
    assertThat(sameMessageOfB).isNotEqualTo(answeredOfA);
    assertThat(status(Who.CALLER_A, get("/api/v1/questions/" + sameMessageOfB))).isEqualTo(404);
  }

  @Test
  void hostileClaimingVipWithoutPermissionIsForbiddenAndStartsNothing() throws Exception {
    String msg = "m-" + UUID.randomUUID();
    String body =
        "{\"sessionId\":\"s-vip\",\"userId\":\"u-a\",\"clientMsgId\":\""
            + msg
            + "\",\"text\":\"How do I top up?\",\"tier\":\"VIP\"}";
    MockHttpServletResponse refused = askAs(Who.CALLER_A, body);
    assertThat(refused.getStatus()).isEqualTo(403);
    assertThat(refused.getContentAsString()).contains("may not assert tier VIP");
    String wouldBe =
        ids.forMessage(Requester.backend("backend-a", Tier.STANDARD), "u-a", "s-vip", msg);
    assertThatThrownBy(() -> client.newUntypedWorkflowStub(wouldBe).describe())
        .isInstanceOf(WorkflowNotFoundException.class);
    assertThat(askAs(Who.VISITOR, body.replace("u-a", visitorId)).getStatus())
        .as("web visitors")
        .isEqualTo(403);

    MockHttpServletResponse allowed =
        mvc.perform(
                post("/api/v1/questions")
                    .contentType(MediaType.APPLICATION_JSON)
                    .header("Authorization", "Bearer " + KEY_VIP)
                    .content(body))
            .andReturn()
            .getResponse();
    assertThat(allowed.getStatus()).as("a caller with :VIP").isEqualTo(202);
  }

  @Test
  void aWebVisitorAsksOnlyAsItself() throws Exception {
    assertThat(ask(Who.VISITOR, "somebody-else", "s-v", "m1", "How do I top up?").getStatus())
        .isEqualTo(403);
    String mine = accepted(ask(Who.VISITOR, visitorId, "s-v", "m1", "How do I top up?"));
    assertThat(status(Who.VISITOR, get("/api/v1/questions/" + mine))).isEqualTo(200);
    assertThat(status(Who.CALLER_A, get("/api/v1/questions/" + mine))).isEqualTo(404);
    // a forged or expired session is no session
    assertThat(
            status(
                Who.NOBODY,
                get("/api/v1/questions/" + mine)
                    .cookie(
                        new Cookie(
                            WebSessions.COOKIE,
                            visitorCookie
                                    .getValue()
                                    .substring(0, visitorCookie.getValue().length() - 2)
                                + "xx"))))
        .isEqualTo(401);
  }

  @Test
  void aStaleSessionCookieBreaksNoPublicPageAndRenewingKeepsAValidVisitor() throws Exception {
    Cookie stale = new Cookie(WebSessions.COOKIE, "not.a-session.token");
    assertThat(mvc.perform(get("/").cookie(stale)).andReturn().getResponse().getStatus())
        .isEqualTo(200);
    MockHttpServletResponse fresh =
        mvc.perform(post("/api/v1/web-session").cookie(stale)).andReturn().getResponse();
    assertThat(fresh.getStatus()).isEqualTo(200);
    assertThat(JSON.readTree(fresh.getContentAsString()).get("visitorId").asText())
        .isNotEqualTo(visitorId);

    MockHttpServletResponse renewed =
        mvc.perform(post("/api/v1/web-session").cookie(visitorCookie)).andReturn().getResponse();
    assertThat(JSON.readTree(renewed.getContentAsString()).get("visitorId").asText())
        .isEqualTo(visitorId);
    assertThat(renewed.getCookie(WebSessions.COOKIE).getValue()).isNotBlank();
  }

  /** What a page on another site makes a browser send along with the request. */
  private static MockHttpServletRequestBuilder crossSite(MockHttpServletRequestBuilder request) {
    return request.header("Origin", "https://evil.example").header("Sec-Fetch-Site", "cross-site");
  }

  @Test
  void crossSiteRequestsChangeNothingAndReadNothingWithACookie() throws Exception {
    String msg = "m-" + UUID.randomUUID();
    //                          NOBODY CALLER_A CALLER_B VISITOR STAFF ADMIN METRICS
    assertRow(
        "cross-site POST question",
        who ->
            crossSite(
                post("/api/v1/questions")
                    .contentType(MediaType.APPLICATION_JSON)
                    .content(
                        "{\"sessionId\":\"s-x\",\"userId\":\""
                            + (who == Who.VISITOR ? visitorId : "u-x")
                            + "\",\"clientMsgId\":\""
                            + msg
                            + "\",\"text\":\"How do I top up?\"}")),
        403,
        403,
        403,
        403,
        403,
        403,
        403);
    for (Requester asker :
        List.of(
            Requester.backend("backend-a", Tier.STANDARD),
            Requester.backend("backend-b", Tier.STANDARD),
            Requester.visitor(visitorId))) {
      String wouldBe =
          ids.forMessage(
              asker, asker.kind() == Requester.Kind.WEB_VISITOR ? visitorId : "u-x", "s-x", msg);
      assertThatThrownBy(() -> client.newUntypedWorkflowStub(wouldBe).describe())
          .as("no workflow for the cross-site ask of %s", asker.name())
          .isInstanceOf(WorkflowNotFoundException.class);
    }
    // body-less admin POSTs (a form or no-cors fetch can send them): refused before they run
    String runBefore = runId(answeredOfA);
    assertRow(
        "cross-site POST admin rerun",
        who ->
            crossSite(post("/api/v1/admin/questions/" + answeredOfA + "/rerun"))
                .param("from", "START"),
        403,
        403,
        403,
        403,
        403,
        403,
        403);
    assertThat(runId(answeredOfA)).as("no cross-site re-run").isEqualTo(runBefore);
    assertRow(
        "cross-site POST web session",
        who -> crossSite(post("/api/v1/web-session")),
        403,
        403,
        403,
        403,
        403,
        403,
        403);
    // reads: a bearer key is the client's own doing; a cookie is the browser's
    assertRow(
        "cross-site GET question",
        who -> crossSite(get("/api/v1/questions/" + answeredOfA)),
        401,
        200,
        404,
        403,
        200,
        200,
        403);
    assertRow(
        "GET question from another port of this host",
        who -> get("/api/v1/questions/" + answeredOfA).header("Origin", "http://localhost:3000"),
        401,
        200,
        404,
        403,
        200,
        200,
        403);
    assertRow(
        "POST reply from another port of this host (same site: SameSite cookies go along)",
        who ->
            post("/api/v1/tickets/T-none/reply")
                .header("Origin", "http://localhost:3000")
                .header("Sec-Fetch-Site", "same-site")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"text\":\"x\"}"),
        403,
        403,
        403,
        403,
        403,
        403,
        403);
    // the app's own origin, and browsers' same-origin and direct requests, are let in as usual
    assertRow(
        "same-origin GET question",
        who ->
            get("/api/v1/questions/" + answeredOfA)
                .header("Origin", "http://localhost")
                .header("Sec-Fetch-Site", "same-origin"),
        401,
        200,
        404,
        404,
        200,
        200,
        403);
    assertRow(
        "typed-in GET me (Sec-Fetch-Site none)",
        who -> get("/api/v1/me").header("Sec-Fetch-Site", "none"),
        401,
        200,
        200,
        200,
        200,
        200,
        403);
    assertRow(
        "cross-site link to the chat page",
        who -> crossSite(get("/")),
        200,
        200,
        200,
        200,
        200,
        200,
        200);
    MockHttpServletResponse refused =
        mvc.perform(as(Who.VISITOR, crossSite(post("/api/v1/web-session"))))
            .andReturn()
            .getResponse();
    assertThat(refused.getContentType()).contains("application/problem+json");
  }

  @Test
  void healthDetailsAreForAdminsOnly() throws Exception {
    String open =
        mvc.perform(get("/actuator/health")).andReturn().getResponse().getContentAsString();
    assertThat(JSON.readTree(open).has("components")).as(open).isFalse();
    String detailed =
        mvc.perform(as(Who.ADMIN, get("/actuator/health")))
            .andReturn()
            .getResponse()
            .getContentAsString();
    assertThat(JSON.readTree(detailed).has("components")).as(detailed).isTrue();
    String scraper =
        mvc.perform(as(Who.METRICS, get("/actuator/health")))
            .andReturn()
            .getResponse()
            .getContentAsString();
    assertThat(JSON.readTree(scraper).has("components")).as(scraper).isFalse();
  }

  @Test
  void theMetricsKeyScrapesPrometheusAsBearerOrHeaderAndIsRefusedWithAProblem() throws Exception {
    MockHttpServletResponse scrape =
        mvc.perform(as(Who.METRICS, get("/actuator/prometheus"))).andReturn().getResponse();
    assertThat(scrape.getStatus()).isEqualTo(200);
    assertThat(scrape.getContentAsString()).contains("http_server_requests_seconds_count");
    assertThat(
            status(
                Who.NOBODY,
                get("/actuator/prometheus").header(SecurityConfig.API_KEY_HEADER, KEY_METRICS)))
        .isEqualTo(200);
    MockHttpServletResponse refused =
        mvc.perform(as(Who.METRICS, get("/api/v1/me"))).andReturn().getResponse();
    assertThat(refused.getStatus()).isEqualTo(403);
    assertThat(refused.getContentType()).contains("application/problem+json");
    assertThat(
            status(
                Who.NOBODY,
                get("/actuator/prometheus").header("Authorization", "Bearer " + KEY_METRICS + "x")))
        .as("a wrong key")
        .isEqualTo(401);
  }

  /**
   * Trial mode's rows: who is {@code local} (the token, as bearer or cookie) and who is nobody
   * (loopback without it, whatever the Host header; a wrong token); and the token refused from
   * another site. The same context as {@link TrialModeTest}.
   */
  @Nested
  @NestedTestConfiguration(NestedTestConfiguration.EnclosingConfiguration.OVERRIDE)
  @SpringBootTest(properties = {TrialModeTest.EMBEDDED, TrialModeTest.FAQ, TrialModeTest.DATA_DIR})
  @AutoConfigureMockMvc
  @TestInstance(TestInstance.Lifecycle.PER_METHOD)
  class TrialTokenRows {

    enum Trial {
      LOOPBACK,
      HOST_127,
      WRONG_TOKEN,
      TOKEN,
      COOKIE,
      TOKEN_CROSS_SITE,
      COOKIE_CROSS_SITE
    }

    @Autowired MockMvc trialMvc;
    @Autowired TrialToken trial;

    private MockHttpServletRequestBuilder as(Trial who, MockHttpServletRequestBuilder request) {
      return switch (who) {
        case LOOPBACK -> request; // MockMvc: from 127.0.0.1 to localhost
        case HOST_127 -> request.header("Host", "127.0.0.1:8080"); // nginx's proxy_pass default
        case WRONG_TOKEN -> request.header("Authorization", "Bearer " + "x".repeat(43));
        case TOKEN -> request.header("Authorization", "Bearer " + trial.value());
        case COOKIE -> request.cookie(new Cookie(TrialToken.COOKIE, trial.value()));
        case TOKEN_CROSS_SITE ->
            crossSite(request.header("Authorization", "Bearer " + trial.value()));
        case COOKIE_CROSS_SITE ->
            crossSite(request.cookie(new Cookie(TrialToken.COOKIE, trial.value())));
      };
    }

    private void row(
        String endpoint, Function<Trial, MockHttpServletRequestBuilder> request, int... expected)
        throws Exception {
      Map<Trial, Integer> actual = new EnumMap<>(Trial.class);
      Map<Trial, Integer> wanted = new EnumMap<>(Trial.class);
      for (Trial who : Trial.values()) {
        actual.put(
            who,
            trialMvc.perform(as(who, request.apply(who))).andReturn().getResponse().getStatus());
        wanted.put(who, expected[who.ordinal()]);
      }
      assertThat(actual).as(endpoint).isEqualTo(wanted);
    }

    @Test
    void onlyTheTokenIsLocalAndNotFromAnotherSite() throws Exception {
      //           LOOPBACK HOST_127 WRONG TOKEN COOKIE TOKEN_X COOKIE_X
      row("GET tickets", who -> get("/api/v1/tickets"), 401, 401, 401, 200, 200, 403, 403);
      row("GET me", who -> get("/api/v1/me"), 401, 401, 401, 200, 200, 403, 403);
      row(
          "GET admin FAQ changes",
          who -> get("/api/v1/admin/faq/changes"),
          401,
          401,
          401,
          200,
          200,
          403,
          403);
      // 404 on a version that does not exist: the request got through
      row(
          "POST admin FAQ change revert",
          who -> post("/api/v1/admin/faq/changes/987654/revert"),
          401,
          401,
          401,
          404,
          404,
          403,
          403);
      row(
          "POST question",
          who ->
              post("/api/v1/questions")
                  .contentType(MediaType.APPLICATION_JSON)
                  .content(
                      "{\"sessionId\":\"s-trial-row\",\"userId\":\"u-"
                          + who
                          + "\",\"clientMsgId\":\""
                          + UUID.randomUUID()
                          + "\",\"text\":\"How do I top up?\"}"),
          401,
          401,
          401,
          202,
          202,
          403,
          403);
      row(
          "POST codec decode",
          who ->
              post("/codec/decode")
                  .header("X-Namespace", "default")
                  .contentType(MediaType.APPLICATION_JSON)
                  .content("{\"payloads\":[]}"),
          401,
          401,
          401,
          200,
          200,
          403,
          403);
      row("GET prometheus", who -> get("/actuator/prometheus"), 401, 401, 401, 200, 200, 403, 403);
      // public as before (a wrong bearer token is a 401 everywhere; the cookie counts not here)
      row("GET chat page", who -> get("/"), 200, 200, 401, 200, 200, 403, 200);
      row(
          "POST web session",
          who -> post("/api/v1/web-session"),
          200,
          200,
          401,
          200,
          200,
          403,
          403);
      row(
          "GET liveness",
          who -> get("/actuator/health/liveness"),
          200,
          200,
          401,
          200,
          200,
          403,
          403);
    }
  }
}
