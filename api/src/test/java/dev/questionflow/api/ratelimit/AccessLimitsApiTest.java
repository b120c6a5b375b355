package dev.questionflow.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.request;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.api.question.WorkflowIds;
import dev.questionflow.api.security.Requester;
import dev.questionflow.api.security.WebSessions;
import dev.questionflow.workflows.question.Question.Tier;
import io.github.bucket4j.TimeMeter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.Cookie;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.request.RequestPostProcessor;

/**
 * The access limits through the real endpoint, on the embedded default (in-process Temporal, no
 * Redis: local buckets), with small limits and a hand-moved bucket clock.
 */
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.redis.url=",
      "cs.access-limits.per-user.capacity=2",
      "cs.access-limits.per-user.refill-per-second=1",
      "cs.access-limits.per-ip.capacity=3",
      "cs.access-limits.per-ip.refill-per-second=1",
      "cs.access-limits.global.capacity=1",
      "cs.access-limits.global.refill-per-second=1",
      "cs.access-limits.per-caller.capacity=12",
      "cs.access-limits.per-caller.refill-per-second=1",
      "cs.access-limits.per-visitor.capacity=6",
      "cs.access-limits.per-visitor.refill-per-second=1",
      "cs.api.sse-max-per-visitor=3",
      "cs.api.sse-heartbeat=300ms",
      "cs.security.caller-api-keys="
          + AccessLimitsApiTest.BACKEND
          + ":"
          + AccessLimitsApiTest.BACKEND_KEY
          + ",rl-reader:"
          + AccessLimitsApiTest.READER_KEY,
      "cs.security.trusted-proxies=10.0.0.0/8"
    })
@AutoConfigureMockMvc
class AccessLimitsApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  static final String BACKEND = "rl-backend";
  static final String BACKEND_KEY = "rl-backend-key-0123456789-abcdef0123456789";
  static final String READER_KEY = "rl-reader-key-0123456789-abcdef0123456789";

  @TestConfiguration
  static class Clock {
    @Bean
    ManualClock bucketClock() {
      return new ManualClock();
    }
  }

  @Autowired MockMvc mvc;
  @Autowired ManualClock clock;
  @Autowired MeterRegistry meters;
  @Autowired TimeMeter timeMeter;
  @Autowired WorkflowIds ids;

  /** A question of the chat back end, sent from the address ip. */
  private ResultActions ask(String session, String user, String msg, String ip) throws Exception {
    String body =
        "{\"sessionId\":\""
            + session
            + "\",\"userId\":\""
            + user
            + "\",\"clientMsgId\":\""
            + msg
            + "\",\"text\":\"How do I top up?\"}";
    return mvc.perform(
        MockMvcRequestBuilders.post("/api/v1/questions")
            .contentType(MediaType.APPLICATION_JSON)
            .header("Authorization", "Bearer " + BACKEND_KEY)
            .content(body)
            .with(peer(ip)));
  }

  private String idOf(String user, String session, String msg) {
    return ids.forMessage(Requester.backend(BACKEND, Tier.STANDARD), user, session, msg);
  }

  /** The public page's web-session call from a peer address, with an optional X-Forwarded-For. */
  private ResultActions webSession(String peer, String forwardedFor) throws Exception {
    MockHttpServletRequestBuilder request =
        MockMvcRequestBuilders.post("/api/v1/web-session").with(peer(peer));
    if (forwardedFor != null) {
      request.header("X-Forwarded-For", forwardedFor);
    }
    return mvc.perform(request);
  }

  private JsonNode accepted(ResultActions result) throws Exception {
    return JSON.readTree(
        result.andExpect(status().isAccepted()).andReturn().getResponse().getContentAsString());
  }

  private double counter(String name, String... tags) {
    var found = meters.find(name).tags(tags).counter();
    return found == null ? 0 : found.count();
  }

  @Test
  void theTestClockIsTheLimitersClock() {
    assertThat(timeMeter).isSameAs(clock);
  }

  @Test
  void aUserOverTheLimitGets429WithRetryAfterAndNothingStarts() throws Exception {
    clock.advance(Duration.ofSeconds(10));
    double before = counter(AccessLimiter.REJECTED_METRIC, "limit", "user");
    accepted(ask("rl-s1", "rl-user-1", "m1", "198.51.100.1"));
    accepted(ask("rl-s1", "rl-user-1", "m2", "198.51.100.2"));

    ask("rl-s1", "rl-user-1", "m3", "198.51.100.3")
        .andExpect(status().isTooManyRequests())
        .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
        .andExpect(header().string("Retry-After", "1"))
        .andExpect(jsonPath("$.status").value(429))
        .andExpect(jsonPath("$.limit").value("user"))
        .andExpect(jsonPath("$.retryAfterSeconds").value(1))
        .andExpect(jsonPath("$.trace").doesNotExist());

    mvc.perform(
            get("/api/v1/questions/" + idOf("rl-user-1", "rl-s1", "m3"))
                .header("Authorization", "Bearer " + BACKEND_KEY))
        .andExpect(status().isNotFound());
    assertThat(counter(AccessLimiter.REJECTED_METRIC, "limit", "user") - before).isEqualTo(1);

    clock.advance(Duration.ofSeconds(1)); // refilled: the same message now goes through
    JsonNode later = accepted(ask("rl-s1", "rl-user-1", "m3", "198.51.100.3"));
    assertThat(later.get("duplicate").asBoolean()).isFalse();
  }

  @Test
  void aChatBackEndIsNeverLimitedByItsAddress() throws Exception {
    clock.advance(Duration.ofSeconds(10));
    for (int i = 0;
        i < 6;
        i++) { // twice the per-IP capacity, from one address: one back end, many users
      accepted(ask("rl-s2", "rl-ip-user-" + i, "m" + i, "203.0.113.50"));
    }
  }

  @Test
  void thePublicPageIsLimitedPerAddress() throws Exception {
    clock.advance(Duration.ofSeconds(10));
    for (int i = 0; i < 3; i++) {
      webSession("203.0.113.60", null).andExpect(status().isOk());
    }
    webSession("203.0.113.60", null)
        .andExpect(status().isTooManyRequests())
        .andExpect(header().string("Retry-After", "1"))
        .andExpect(jsonPath("$.limit").value("ip"));
    webSession("203.0.113.61", null).andExpect(status().isOk());
  }

  @Test
  void overTheGlobalLimitTheQuestionIsAcceptedAndMarkedQueued() throws Exception {
    clock.advance(Duration.ofSeconds(10)); // the global bucket (1 token) is full
    double before = counter(AccessLimiter.QUEUED_METRIC);

    JsonNode first = accepted(ask("rl-s3", "rl-g-1", "m1", "198.51.100.31"));
    JsonNode second = accepted(ask("rl-s3", "rl-g-2", "m2", "198.51.100.32"));

    assertThat(first.get("queued").asBoolean()).isFalse();
    assertThat(second.get("queued").asBoolean()).isTrue();
    assertThat(second.get("workflowId").asText()).isEqualTo(idOf("rl-g-2", "rl-s3", "m2"));
    assertThat(second.get("statusUrl").asText()).startsWith("/api/v1/questions/q-");
    assertThat(second.get("duplicate").asBoolean()).isFalse();
    assertThat(counter(AccessLimiter.QUEUED_METRIC) - before).isEqualTo(1);
    // it was started like any other question
    mvc.perform(
            get(second.get("statusUrl").asText()).header("Authorization", "Bearer " + BACKEND_KEY))
        .andExpect(status().isOk());
  }

  @Test
  void duplicateSubmitsDoNotUseUpTheUsersTokens() throws Exception {
    clock.advance(Duration.ofSeconds(10));
    long startsBefore = meters.get("cs_accept_temporal_start_seconds").timer().count();
    JsonNode first = accepted(ask("rl-s4", "rl-dup", "m1", "198.51.100.41"));
    for (int i = 0; i < 5; i++) { // five more clicks on "send": the same question, no tokens
      JsonNode again = accepted(ask("rl-s4", "rl-dup", "m1", "198.51.100.41"));
      assertThat(again.get("duplicate").asBoolean()).isTrue();
      assertThat(again.get("workflowId").asText()).isEqualTo(first.get("workflowId").asText());
    }
    assertThat(meters.get("cs_accept_temporal_start_seconds").timer().count() - startsBefore)
        .as("the repeats within the window made no call to Temporal")
        .isEqualTo(1);
    accepted(ask("rl-s4", "rl-dup", "m2", "198.51.100.42")); // the user's second token
    ask("rl-s4", "rl-dup", "m3", "198.51.100.43").andExpect(status().isTooManyRequests());
  }

  @Test
  void forwardedForIsBelievedOnlyFromATrustedProxy() throws Exception {
    clock.advance(Duration.ofSeconds(10));
    for (int i = 0; i < 3; i++) { // a caller writing its own X-Forwarded-For is still one address
      webSession("198.51.100.77", "192.0.2." + i).andExpect(status().isOk());
    }
    webSession("198.51.100.77", "192.0.2.9").andExpect(status().isTooManyRequests());
    for (int i = 0; i < 6; i++) { // behind our proxy (10.0.0.0/8): each client is its own address
      webSession("10.0.0.5", "6.6.6.6, 192.0.2." + (20 + i)).andExpect(status().isOk());
    }
    // the session cookie is Secure when our proxy says the client came over HTTPS, and only then
    assertThat(
            webSession("10.0.0.5", "192.0.2.40").andReturn().getResponse().getHeader("Set-Cookie"))
        .doesNotContain("Secure");
    assertThat(
            mvc.perform(
                    MockMvcRequestBuilders.post("/api/v1/web-session")
                        .with(peer("10.0.0.5"))
                        .header("X-Forwarded-For", "192.0.2.41")
                        .header("X-Forwarded-Proto", "https"))
                .andReturn()
                .getResponse()
                .getHeader("Set-Cookie"))
        .contains("Secure");
    assertThat(
            mvc.perform(
                    MockMvcRequestBuilders.post("/api/v1/web-session")
                        .with(peer("198.51.100.78"))
                        .header("X-Forwarded-Proto", "https"))
                .andReturn()
                .getResponse()
                .getHeader("Set-Cookie"))
        .as("not from a trusted proxy")
        .doesNotContain("Secure");
  }

  @Test
  void readsCountAgainstTheCallersOwnLimit() throws Exception {
    clock.advance(Duration.ofSeconds(20));
    String unknown = "/api/v1/questions/q-" + "0".repeat(32);
    // every other read percent-encodes the path, which routes the same and must count the same
    java.net.URI encoded = java.net.URI.create(unknown.replace("/api/", "/%61pi/"));
    for (int i = 0; i < 12; i++) {
      mvc.perform(
              (i % 2 == 0 ? get(unknown) : get(encoded))
                  .header("Authorization", "Bearer " + READER_KEY))
          .andExpect(status().isNotFound());
    }
    mvc.perform(get(unknown).header("Authorization", "Bearer " + READER_KEY))
        .andExpect(status().isTooManyRequests())
        .andExpect(header().string("Retry-After", "1"))
        .andExpect(jsonPath("$.limit").value("caller"));
    // another caller's bucket is its own
    mvc.perform(get(unknown).header("Authorization", "Bearer " + BACKEND_KEY))
        .andExpect(status().isNotFound());
    clock.advance(Duration.ofSeconds(1));
    mvc.perform(get(unknown).header("Authorization", "Bearer " + READER_KEY))
        .andExpect(status().isNotFound());
  }

  /**
   * A chat-page visitor's session (the response with its cookie and visitor ID), from its own
   * address.
   */
  private MockHttpServletResponse visitor(String ip) throws Exception {
    return webSession(ip, null).andExpect(status().isOk()).andReturn().getResponse();
  }

  private static RequestPostProcessor peer(String ip) {
    return request -> {
      request.setRemoteAddr(ip);
      return request;
    };
  }

  @Test
  void aVisitorsReadsAreLimitedPerVisitor() throws Exception {
    clock.advance(Duration.ofSeconds(20));
    Cookie session = visitor("203.0.113.90").getCookie(WebSessions.COOKIE);
    String unknown = "/api/v1/questions/q-" + "0".repeat(32);
    // a new address each time (a phone on the move): the visitor's own bucket is what stops it
    for (int i = 0; i < 6; i++) {
      mvc.perform(get(unknown).cookie(session).with(peer("203.0.113." + (100 + i))))
          .andExpect(status().isNotFound());
    }
    mvc.perform(get(unknown).cookie(session).with(peer("203.0.113.110")))
        .andExpect(status().isTooManyRequests())
        .andExpect(jsonPath("$.limit").value("visitor"));
  }

  @Test
  void aVisitorHasAtMostThreeOpenEventStreams() throws Exception {
    clock.advance(Duration.ofSeconds(20));
    MockHttpServletResponse started = visitor("203.0.113.120");
    Cookie session = started.getCookie(WebSessions.COOKIE);
    String visitorId = JSON.readTree(started.getContentAsString()).get("visitorId").asText();
    String body =
        "{\"sessionId\":\"rl-sse\",\"userId\":\""
            + visitorId
            + "\",\"clientMsgId\":\"m1\","
            + "\"text\":\"What is the airspeed velocity of an unladen swallow?\"}";
    String workflowId =
        accepted(
                mvc.perform(
                    post("/api/v1/questions")
                        .contentType(MediaType.APPLICATION_JSON)
                        .cookie(session)
                        .with(peer("203.0.113.121"))
                        .content(body)))
            .get("workflowId")
            .asText();
    String events = "/api/v1/questions/" + workflowId + "/events";
    List<MockHttpServletResponse> open = new ArrayList<>();
    for (int i = 0; i < 3; i++) { // a ticketed question's stream stays open for the person's reply
      open.add(
          mvc.perform(get(events).cookie(session).with(peer("203.0.113." + (122 + i))))
              .andExpect(request().asyncStarted())
              .andReturn()
              .getResponse());
    }
    // a quiet stream still sends a comment line now and then, so a client that went away is noticed
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(open.get(0).getContentAsString()).contains(":keep-alive"));
    mvc.perform(get(events).cookie(session).with(peer("203.0.113.125")))
        .andExpect(status().isTooManyRequests())
        .andExpect(header().exists("Retry-After"))
        .andExpect(jsonPath("$.limit").value("streams"));
    // another visitor's streams are not capped by this one's
    MockHttpServletResponse other = visitor("203.0.113.126");
    mvc.perform(get(events).cookie(other.getCookie(WebSessions.COOKIE)).with(peer("203.0.113.127")))
        .andExpect(status().isNotFound());
  }
}
