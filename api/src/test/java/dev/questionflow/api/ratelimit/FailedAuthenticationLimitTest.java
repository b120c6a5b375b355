package dev.questionflow.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import jakarta.servlet.http.Cookie;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * Issue 28, item 5: failed authentications are limited per client address, and Temporal's codec per
 * requester (in-process buckets, a hand-moved bucket clock).
 */
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.redis.url=",
      "cs.access-limits.failed-auth-per-ip.attempts=3",
      "cs.access-limits.failed-auth-per-ip.window=1m",
      "cs.access-limits.per-codec-requester.capacity=3",
      "cs.access-limits.per-codec-requester.refill-per-second=1",
      "cs.security.caller-api-keys=backend:" + FailedAuthenticationLimitTest.CALLER,
      "cs.security.staff-api-keys=alice:"
          + FailedAuthenticationLimitTest.ALICE
          + ",bob:"
          + FailedAuthenticationLimitTest.BOB
    })
@AutoConfigureMockMvc
class FailedAuthenticationLimitTest {

  static final String CALLER = "fa-caller-key-0123456789abcdef0123456789";
  static final String ALICE = "fa-alice-key-0123456789abcdef0123456789";
  static final String BOB = "fa-bob-key-0123456789abcdef0123456789";
  private static final String WRONG = "fa-wrong-key-0123456789abcdef0123456789";

  @TestConfiguration
  static class Clock {
    @Bean
    ManualClock bucketClock() {
      return new ManualClock();
    }
  }

  @Autowired MockMvc mvc;

  private MockHttpServletResponse me(String ip, String key) throws Exception {
    MockHttpServletRequestBuilder request = get("/api/v1/me").with(peer(ip));
    if (key != null) {
      request.header("Authorization", "Bearer " + key);
    }
    return mvc.perform(request).andReturn().getResponse();
  }

  private static org.springframework.test.web.servlet.request.RequestPostProcessor peer(String ip) {
    return request -> {
      request.setRemoteAddr(ip);
      return request;
    };
  }

  @Test
  void anAddressOutOfAttemptsIsRefusedBeforeItsCredentialIsCheckedAndOthersAreNot()
      throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(me("192.0.2.10", WRONG).getStatus()).isEqualTo(401);
    }
    // the right key from that address is not even checked now
    MockHttpServletResponse refused = me("192.0.2.10", CALLER);
    assertThat(refused.getStatus()).isEqualTo(429);
    assertThat(refused.getContentType()).startsWith("application/problem+json");
    assertThat(refused.getContentAsString()).contains("failed authentications");
    assertThat(Long.parseLong(refused.getHeader("Retry-After"))).isBetween(1L, 60L);
    assertThat(me("192.0.2.10", WRONG).getStatus()).isEqualTo(429);

    assertThat(me("192.0.2.11", CALLER).getStatus()).as("another address").isEqualTo(200);
  }

  @Test
  void aForgedCookieCountsAndNoCredentialDoesNot() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(
              mvc.perform(
                      get("/api/v1/me")
                          .with(peer("192.0.2.20"))
                          .cookie(new Cookie("qf_web", "eyJhbGciOiJIUzI1NiJ9.e30.forged")))
                  .andReturn()
                  .getResponse()
                  .getStatus())
          .isEqualTo(401);
    }
    assertThat(me("192.0.2.20", CALLER).getStatus()).isEqualTo(429);

    for (int i = 0; i < 5; i++) {
      assertThat(me("192.0.2.30", null).getStatus()).isEqualTo(401);
    }
    assertThat(me("192.0.2.30", CALLER).getStatus()).isEqualTo(200);
  }

  @Test
  void theCodecIsLimitedPerRequester() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(decode(ALICE).getStatus()).isEqualTo(200);
    }
    MockHttpServletResponse refused = decode(ALICE);
    assertThat(refused.getStatus()).isEqualTo(429);
    assertThat(refused.getContentType()).startsWith("application/problem+json");
    assertThat(refused.getHeader("Retry-After")).isNotNull();
    assertThat(decode(BOB).getStatus()).as("another staff member").isEqualTo(200);
    assertThat(me("192.0.2.40", ALICE).getStatus()).as("alice's own API requests").isEqualTo(200);
  }

  private MockHttpServletResponse decode(String key) throws Exception {
    return mvc.perform(
            post("/codec/decode")
                .header("Authorization", "Bearer " + key)
                .header("X-Namespace", "default")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"payloads\":[]}"))
        .andReturn()
        .getResponse();
  }
}
