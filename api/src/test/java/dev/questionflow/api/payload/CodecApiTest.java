package dev.questionflow.api.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.options;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.util.JsonFormat;
import io.temporal.api.common.v1.Payloads;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * With PAYLOAD_KEYS on the embedded server: the stored history holds no customer text, and the
 * codec endpoint gives it back to staff only, to the configured Web UI origin only.
 */
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.security.caller-api-keys=backend:" + CodecApiTest.CALLER,
      "cs.security.staff-api-keys=alice:" + CodecApiTest.STAFF,
      "cs.security.workflow-id-secret=codec-test-secret-0123456789",
      "cs.payloads.keys=" + CodecApiTest.KEYS,
      "cs.payloads.codec-origins=" + CodecApiTest.UI_ORIGIN
    })
@AutoConfigureMockMvc
class CodecApiTest {

  static final String CALLER = "caller-0123456789abcdef-abcdef0123456789";
  static final String STAFF = "staff-0123456789abcdef-abcdef0123456789";
  static final String KEYS = "k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
  static final String UI_ORIGIN = "http://localhost:8233";
  private static final String MARKER = "ZEBRA-MARKER-5150";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Autowired MockMvc mvc;
  @Autowired WorkflowClient client;

  @Test
  void staffDecodeWhatTheServerStoresEncrypted() throws Exception {
    String workflowId = ask("Where is my parcel " + MARKER + "?");
    awaitAnswered(workflowId);

    var history = client.fetchHistory(workflowId);
    assertThat(history.toJson(false)).doesNotContain(MARKER);
    // handed over: the question's own run is the one the wait for a person continued from
    String questionRun =
        history
            .getEvents()
            .get(0)
            .getWorkflowExecutionStartedEventAttributes()
            .getContinuedExecutionRunId();
    if (!questionRun.isEmpty()) {
      history = client.fetchHistory(workflowId, questionRun);
      assertThat(history.toJson(false)).doesNotContain(MARKER);
    }
    Payloads input =
        history.getEvents().get(0).getWorkflowExecutionStartedEventAttributes().getInput();
    String body = JsonFormat.printer().print(input);

    MockHttpServletResponse decoded =
        mvc.perform(
                decode(body)
                    .header("Authorization", "Bearer " + STAFF)
                    .header("X-Namespace", "default"))
            .andReturn()
            .getResponse();
    assertThat(decoded.getStatus()).isEqualTo(200);
    Payloads plain = parse(decoded.getContentAsString());
    assertThat(plain.getPayloads(0).getData().toStringUtf8()).contains(MARKER);

    assertThat(mvc.perform(decode(body)).andReturn().getResponse().getStatus()).isEqualTo(401);
    assertThat(
            mvc.perform(decode(body).header("Authorization", "Bearer " + CALLER))
                .andReturn()
                .getResponse()
                .getStatus())
        .isEqualTo(403);
  }

  @Test
  void encodeThenDecodeGivesThePayloadBackAndNeverCarriesItInPlain() throws Exception {
    String plain =
        "{\"payloads\":[{\"metadata\":{\"encoding\":\"anNvbi9wbGFpbg==\"},\"data\":\"IlpFQlJBIg==\"}]}";
    MockHttpServletResponse encoded =
        mvc.perform(
                post("/codec/encode")
                    .contentType(MediaType.APPLICATION_JSON)
                    .content(plain)
                    .header("Authorization", "Bearer " + STAFF)
                    .header("X-Namespace", "default"))
            .andReturn()
            .getResponse();
    assertThat(encoded.getStatus()).isEqualTo(200);
    Payloads sealed = parse(encoded.getContentAsString());
    assertThat(sealed.getPayloads(0).getMetadataMap().get("encryption-key-id").toStringUtf8())
        .isEqualTo("k1");
    assertThat(sealed.getPayloads(0).getData().toStringUtf8()).doesNotContain("ZEBRA");

    MockHttpServletResponse decoded =
        mvc.perform(
                decode(encoded.getContentAsString())
                    .header("Authorization", "Bearer " + STAFF)
                    .header("X-Namespace", "default"))
            .andReturn()
            .getResponse();
    assertThat(parse(decoded.getContentAsString())).isEqualTo(parse(plain));
  }

  @Test
  void theWebUiOriginMayCallFromTheBrowserAndNoOtherOrigin() throws Exception {
    MockHttpServletResponse allowed = preflight(UI_ORIGIN);
    assertThat(allowed.getStatus()).isEqualTo(200);
    assertThat(allowed.getHeader("Access-Control-Allow-Origin")).isEqualTo(UI_ORIGIN);
    assertThat(allowed.getHeader("Access-Control-Allow-Credentials")).isEqualTo("true");
    assertThat(allowed.getHeader("Access-Control-Allow-Headers"))
        .containsIgnoringCase("authorization")
        .containsIgnoringCase("x-namespace");

    MockHttpServletResponse foreign = preflight("https://evil.example");
    assertThat(foreign.getStatus()).isEqualTo(403);
    assertThat(foreign.getHeader("Access-Control-Allow-Origin")).isNull();
  }

  @Test
  void badRequestsGetAProblemAndChangeNothing() throws Exception {
    MockHttpServletResponse otherNamespace =
        mvc.perform(
                decode("{\"payloads\":[]}")
                    .header("Authorization", "Bearer " + STAFF)
                    .header("X-Namespace", "payments"))
            .andReturn()
            .getResponse();
    assertThat(otherNamespace.getStatus()).isEqualTo(400);
    assertThat(otherNamespace.getContentType()).startsWith("application/problem+json");
    assertThat(otherNamespace.getContentAsString()).contains("serves namespace 'default'");

    for (String missing : new String[] {null, " "}) {
      MockHttpServletRequestBuilder request =
          decode("{\"payloads\":[]}").header("Authorization", "Bearer " + STAFF);
      if (missing != null) {
        request.header("X-Namespace", missing);
      }
      MockHttpServletResponse noNamespace = mvc.perform(request).andReturn().getResponse();
      assertThat(noNamespace.getStatus()).as("X-Namespace '%s'", missing).isEqualTo(400);
      assertThat(noNamespace.getContentType()).startsWith("application/problem+json");
      assertThat(noNamespace.getContentAsString()).contains("X-Namespace header is required");
    }

    MockHttpServletResponse notPayloads =
        mvc.perform(
                decode("{\"payload\": 1}")
                    .header("Authorization", "Bearer " + STAFF)
                    .header("X-Namespace", "default"))
            .andReturn()
            .getResponse();
    assertThat(notPayloads.getStatus()).isEqualTo(400);
    assertThat(notPayloads.getContentAsString()).contains("protobuf JSON");
  }

  private MockHttpServletResponse preflight(String origin) throws Exception {
    return mvc.perform(
            options("/codec/decode")
                .header("Origin", origin)
                .header("Access-Control-Request-Method", "POST")
                .header("Access-Control-Request-Headers", "authorization,content-type,x-namespace"))
        .andReturn()
        .getResponse();
  }

  private static MockHttpServletRequestBuilder decode(String body) {
    return post("/codec/decode").contentType(MediaType.APPLICATION_JSON).content(body);
  }

  private static Payloads parse(String json) throws Exception {
    Payloads.Builder payloads = Payloads.newBuilder();
    JsonFormat.parser().merge(json, payloads);
    return payloads.build();
  }

  private String ask(String text) throws Exception {
    MockHttpServletResponse response =
        mvc.perform(
                post("/api/v1/questions")
                    .header("Authorization", "Bearer " + CALLER)
                    .contentType(MediaType.APPLICATION_JSON)
                    .content(
                        JSON.writeValueAsString(
                            java.util.Map.of(
                                "sessionId",
                                "s1",
                                "userId",
                                "u1",
                                "clientMsgId",
                                "m1",
                                "text",
                                text))))
            .andReturn()
            .getResponse();
    assertThat(response.getStatus()).as(response.getContentAsString()).isEqualTo(202);
    return JSON.readTree(response.getContentAsString()).get("workflowId").asText();
  }

  private void awaitAnswered(String workflowId) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              JsonNode status =
                  JSON.readTree(
                      mvc.perform(
                              get("/api/v1/questions/" + workflowId)
                                  .header("Authorization", "Bearer " + CALLER))
                          .andReturn()
                          .getResponse()
                          .getContentAsString());
              assertThat(status.path("stage").asText()).isIn("ANSWERED", "TICKETED");
            });
  }
}
