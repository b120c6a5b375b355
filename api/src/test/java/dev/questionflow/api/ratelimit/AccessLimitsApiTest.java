package dev.questionflow.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.api.question.WorkflowIds;
import io.github.bucket4j.TimeMeter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;

/**
 * The access limits through the real endpoint, on the embedded default (in-process Temporal, no Redis: local buckets),
 * with small limits and a hand-moved bucket clock.
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
      "cs.access-limits.global.refill-per-second=1"
    })
@AutoConfigureMockMvc
class AccessLimitsApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();

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

  private ResultActions ask(String session, String user, String msg, String ip) throws Exception {
    String body =
        "{\"sessionId\":\"" + session + "\",\"userId\":\"" + user + "\",\"clientMsgId\":\"" + msg
            + "\",\"text\":\"How do I top up?\"}";
    return mvc.perform(
        MockMvcRequestBuilders.post("/api/v1/questions")
            .contentType(MediaType.APPLICATION_JSON)
            .content(body)
            .with(request -> {
              request.setRemoteAddr(ip);
              return request;
            }));
  }

  private JsonNode accepted(ResultActions result) throws Exception {
    return JSON.readTree(result.andExpect(status().isAccepted()).andReturn().getResponse().getContentAsString());
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

    mvc.perform(get("/api/v1/questions/" + WorkflowIds.forMessage("rl-s1", "m3"))).andExpect(status().isNotFound());
    assertThat(counter(AccessLimiter.REJECTED_METRIC, "limit", "user") - before).isEqualTo(1);

    clock.advance(Duration.ofSeconds(1)); // refilled: the same message now goes through
    JsonNode later = accepted(ask("rl-s1", "rl-user-1", "m3", "198.51.100.3"));
    assertThat(later.get("duplicate").asBoolean()).isFalse();
  }

  @Test
  void anAddressOverTheLimitGets429() throws Exception {
    clock.advance(Duration.ofSeconds(10));
    for (int i = 0; i < 3; i++) {
      accepted(ask("rl-s2", "rl-ip-user-" + i, "m" + i, "203.0.113.50"));
    }
    ask("rl-s2", "rl-ip-user-9", "m9", "203.0.113.50")
        .andExpect(status().isTooManyRequests())
        .andExpect(header().string("Retry-After", "1"))
        .andExpect(jsonPath("$.limit").value("ip"));
    accepted(ask("rl-s2", "rl-ip-user-9", "m9", "203.0.113.51"));
  }

  @Test
  void overTheGlobalLimitTheQuestionIsAcceptedAndMarkedQueued() throws Exception {
    clock.advance(Duration.ofSeconds(10)); // the global bucket (1 token) is full
    double before = counter(AccessLimiter.QUEUED_METRIC);

    JsonNode first = accepted(ask("rl-s3", "rl-g-1", "m1", "198.51.100.31"));
    JsonNode second = accepted(ask("rl-s3", "rl-g-2", "m2", "198.51.100.32"));

    assertThat(first.get("queued").asBoolean()).isFalse();
    assertThat(second.get("queued").asBoolean()).isTrue();
    assertThat(second.get("workflowId").asText()).isEqualTo(WorkflowIds.forMessage("rl-s3", "m2"));
    assertThat(second.get("statusUrl").asText()).startsWith("/api/v1/questions/q-");
    assertThat(second.get("duplicate").asBoolean()).isFalse();
    assertThat(counter(AccessLimiter.QUEUED_METRIC) - before).isEqualTo(1);
    // it was started like any other question
    mvc.perform(get(second.get("statusUrl").asText())).andExpect(status().isOk());
  }

  @Test
  void duplicateSubmitsDoNotUseUpTheUsersTokens() throws Exception {
    clock.advance(Duration.ofSeconds(10));
    JsonNode first = accepted(ask("rl-s4", "rl-dup", "m1", "198.51.100.41"));
    for (int i = 0; i < 5; i++) { // five more clicks on "send": the same question, no tokens
      JsonNode again = accepted(ask("rl-s4", "rl-dup", "m1", "198.51.100.41"));
      assertThat(again.get("duplicate").asBoolean()).isTrue();
      assertThat(again.get("workflowId").asText()).isEqualTo(first.get("workflowId").asText());
    }
    accepted(ask("rl-s4", "rl-dup", "m2", "198.51.100.42")); // the user's second token
    ask("rl-s4", "rl-dup", "m3", "198.51.100.43").andExpect(status().isTooManyRequests());
  }

  @Test
  void forwardedForIsIgnoredUnlessTrusted() throws Exception {
    clock.advance(Duration.ofSeconds(10));
    for (int i = 0; i < 3; i++) {
      int n = i;
      mvc.perform(
              MockMvcRequestBuilders.post("/api/v1/questions")
                  .contentType(MediaType.APPLICATION_JSON)
                  .header("X-Forwarded-For", "192.0.2." + n)
                  .content("{\"sessionId\":\"rl-s5\",\"userId\":\"rl-xff-" + n + "\",\"clientMsgId\":\"m" + n + "\","
                      + "\"text\":\"How do I top up?\"}")
                  .with(request -> {
                    request.setRemoteAddr("198.51.100.77");
                    return request;
                  }))
          .andExpect(status().isAccepted());
    }
    ask("rl-s6", "rl-xff-9", "m", "198.51.100.77").andExpect(status().isTooManyRequests());
  }
}
