package dev.questionflow.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Trial mode (no credential configured) lets in requests from this machine only, and only when not
 * relayed.
 */
@SpringBootTest(
    properties = {"spring.temporal.test-server.enabled=true", "cs.faq.index-dir=../data/faq-index"})
@AutoConfigureMockMvc
class TrialModeTest {

  @Autowired MockMvc mvc;

  private int me(UnaryOperator<MockHttpServletRequest> request) throws Exception {
    return mvc.perform(get("/api/v1/me").with(request::apply))
        .andReturn()
        .getResponse()
        .getStatus();
  }

  @Test
  void aRequestFromThisMachineToLocalhostIsTheLocalCaller() throws Exception {
    String body = mvc.perform(get("/api/v1/me")).andReturn().getResponse().getContentAsString();
    assertThat(body).contains("\"kind\":\"LOCAL\"");
    assertThat(
            me(
                r -> {
                  r.setServerName("127.0.0.1");
                  return r;
                }))
        .isEqualTo(200);
  }

  @Test
  void anotherPeerAnotherHostNameOrARelayedRequestNeedsCredentials() throws Exception {
    assertThat(
            me(
                r -> {
                  r.setRemoteAddr("192.0.2.10");
                  return r;
                }))
        .as("another machine")
        .isEqualTo(401);
    assertThat(
            me(
                r -> {
                  r.setServerName(
                      "rebound.example"); // a web page that rebound its own name to 127.0.0.1
                  return r;
                }))
        .as("DNS rebinding")
        .isEqualTo(401);
    for (String relay :
        new String[] {"X-Forwarded-For", "Forwarded", "X-Real-IP", "Via", "X-Forwarded-Host"}) {
      assertThat(
              me(
                  r -> {
                    r.addHeader(relay, "203.0.113.7");
                    return r;
                  }))
          .as("relayed with %s (a tunnel or proxy on this machine)", relay)
          .isEqualTo(401);
    }
  }
}
