package dev.questionflow.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.Cookie;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * Trial mode (no credential configured): only the holder of this start's trial token is {@code
 * local}; being on loopback, with whatever Host header, is nobody. The printed URL's {@code
 * ?token=} becomes a cookie; the chat page's visitor flow goes on beside it.
 */
@SpringBootTest(properties = {TrialModeTest.EMBEDDED, TrialModeTest.FAQ, TrialModeTest.DATA_DIR})
@AutoConfigureMockMvc
class TrialModeTest {

  static final String EMBEDDED = "spring.temporal.test-server.enabled=true";
  static final String FAQ = "cs.faq.index-dir=../data/faq-index";

  /** Its own data dir: the token file is this context's, whatever other tests start. */
  static final String DATA_DIR = "cs.security.data-dir=target/trial-mode-test";

  private static final ObjectMapper JSON = new ObjectMapper();

  @Autowired MockMvc mvc;
  @Autowired TrialToken trial;

  private MockHttpServletResponse perform(MockHttpServletRequestBuilder request) throws Exception {
    return mvc.perform(request).andReturn().getResponse();
  }

  private static MockHttpServletRequestBuilder withHost(
      MockHttpServletRequestBuilder request, String host) {
    return request.with(
        r -> {
          r.setServerName(host.replaceAll(":\\d+$", ""));
          r.addHeader("Host", host);
          return r;
        });
  }

  /** The metrics key grants no use of the service: alone it is no reason to leave loopback. */
  @Test
  void theMetricsKeyAloneLeavesTrialModeOnAndAnyOtherKeyTurnsItOff() {
    String key = "metrics-0123456789abcdef-abcdef0123456789";
    assertThat(TrialMode.defaultsFor(name -> name.equals("METRICS_API_KEY") ? key : null))
        .containsEntry("server.address", "127.0.0.1");
    assertThat(TrialMode.defaultsFor(name -> name.equals("ADMIN_API_KEY") ? key : null)).isEmpty();
    assertThat(
            TrialMode.on(
                new SecurityProperties(null, null, null, key, null, null, null, null, null, null),
                ""))
        .isTrue();
    assertThat(
            TrialMode.on(
                new SecurityProperties(null, null, key, key, null, null, null, null, null, null),
                ""))
        .isFalse();
  }

  @Test
  void withoutTheTokenALoopbackRequestIsNobodyWhateverItsHostHeader() throws Exception {
    for (String host : List.of("localhost", "localhost:8080", "127.0.0.1:8080", "[::1]:8080")) {
      assertThat(perform(withHost(get("/api/v1/me"), host)).getStatus())
          .as("GET /api/v1/me from loopback with Host %s", host)
          .isEqualTo(401);
      assertThat(perform(withHost(get("/api/v1/tickets"), host)).getStatus())
          .as("tickets, Host %s", host)
          .isEqualTo(401);
      assertThat(perform(withHost(post("/api/v1/admin/faq/changes/1/revert"), host)).getStatus())
          .as("an admin POST, Host %s", host)
          .isEqualTo(401);
    }
    // what stays public
    assertThat(perform(get("/")).getStatus()).isEqualTo(200);
    assertThat(perform(get("/staff")).getStatus()).isEqualTo(200);
    assertThat(perform(post("/api/v1/web-session")).getStatus()).isEqualTo(200);
    assertThat(perform(get("/actuator/health")).getStatus()).isEqualTo(200);
  }

  @Test
  void theTokenAsBearerOrCookieIsLocalAndAWrongOneIsNobody() throws Exception {
    MockHttpServletResponse bearer =
        perform(get("/api/v1/me").header("Authorization", "Bearer " + trial.value()));
    assertThat(bearer.getStatus()).isEqualTo(200);
    assertThat(JSON.readTree(bearer.getContentAsString()).get("kind").asText()).isEqualTo("LOCAL");
    MockHttpServletResponse cookie =
        perform(get("/api/v1/tickets").cookie(new Cookie(TrialToken.COOKIE, trial.value())));
    assertThat(cookie.getStatus()).isEqualTo(200);
    assertThat(
            perform(
                    get("/api/v1/me")
                        .header("Authorization", "Bearer " + trial.value().replace('A', 'B') + "x"))
                .getStatus())
        .as("a wrong token")
        .isEqualTo(401);
    assertThat(
            perform(get("/api/v1/tickets").cookie(new Cookie(TrialToken.COOKIE, "stale")))
                .getStatus())
        .as("a trial cookie of an earlier start")
        .isEqualTo(401);
  }

  @Test
  void theTokenLinkSetsAnHttpOnlyStrictCookieAndRedirectsToThePageWithoutIt() throws Exception {
    MockHttpServletResponse home = perform(get("/").param("token", trial.value()));
    assertThat(home.getStatus()).isEqualTo(303);
    assertThat(home.getHeader("Location")).isEqualTo("/");
    String set =
        home.getHeaders("Set-Cookie").stream()
            .filter(c -> c.startsWith(TrialToken.COOKIE + "="))
            .findFirst()
            .orElseThrow();
    assertThat(set)
        .startsWith(TrialToken.COOKIE + "=" + trial.value() + ";")
        .contains("HttpOnly")
        .contains("SameSite=Strict")
        .contains("Path=/");

    MockHttpServletResponse staff =
        perform(get("/staff?view=open&token=" + trial.value() + "&x=1"));
    assertThat(staff.getStatus()).isEqualTo(303);
    assertThat(staff.getHeader("Location")).isEqualTo("/staff?view=open&x=1");
    assertThat(staff.getHeaders("Set-Cookie")).anyMatch(c -> c.startsWith(TrialToken.COOKIE + "="));

    MockHttpServletResponse wrong = perform(get("/staff").param("token", "not-the-token"));
    assertThat(wrong.getStatus()).as("the same answer, without the cookie").isEqualTo(303);
    assertThat(wrong.getHeader("Location")).isEqualTo("/staff");
    assertThat(wrong.getHeaders("Set-Cookie")).isEmpty();
  }

  @Test
  void theTokenFileIsOwnerOnlyAndHoldsThisStartsToken() throws Exception {
    Path file = Path.of("target/trial-mode-test", TrialToken.FILE);
    assertThat(Files.readString(file).trim()).isEqualTo(trial.value());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(trial.value()).hasSizeGreaterThanOrEqualTo(43); // 32 random bytes
  }

  @Test
  void theChatPageKeepsItsVisitorBesideAStaleTrialCookieAndAsksAsLocalWithAValidOne()
      throws Exception {
    Cookie stale = new Cookie(TrialToken.COOKIE, "from-an-earlier-start");
    MockHttpServletResponse session = perform(post("/api/v1/web-session").cookie(stale));
    assertThat(session.getStatus()).isEqualTo(200);
    Cookie visitor = session.getCookie(WebSessions.COOKIE);
    String visitorId = JSON.readTree(session.getContentAsString()).get("visitorId").asText();
    String body =
        "{\"sessionId\":\"s-trial\",\"userId\":\""
            + visitorId
            + "\",\"clientMsgId\":\""
            + UUID.randomUUID()
            + "\",\"text\":\"How do I top up?\"}";
    JsonNode me =
        JSON.readTree(perform(get("/api/v1/me").cookie(stale, visitor)).getContentAsString());
    assertThat(me.get("kind").asText()).as("stale trial cookie").isEqualTo("WEB_VISITOR");
    assertThat(
            perform(
                    post("/api/v1/questions")
                        .cookie(stale, visitor)
                        .contentType(MediaType.APPLICATION_JSON)
                        .content(body))
                .getStatus())
        .isEqualTo(202);
    Cookie valid = new Cookie(TrialToken.COOKIE, trial.value());
    assertThat(
            JSON.readTree(perform(get("/api/v1/me").cookie(valid, visitor)).getContentAsString())
                .get("kind")
                .asText())
        .as("valid trial cookie")
        .isEqualTo("LOCAL");
    assertThat(
            perform(
                    post("/api/v1/questions")
                        .cookie(valid, visitor)
                        .contentType(MediaType.APPLICATION_JSON)
                        .content(body.replace("s-trial", "s-trial-2")))
                .getStatus())
        .isEqualTo(202);
  }
}
