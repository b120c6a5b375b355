package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packaged app's edge as a Kubernetes pod has it ({@code KUBERNETES_SERVICE_HOST} and {@code
 * _PORT} set, which makes Spring Boot detect the platform), where MockMvc cannot look: Tomcat's
 * valves and body handling.
 *
 * <ul>
 *   <li>{@code X-Forwarded-For} from a peer outside {@code TRUSTED_PROXIES} changes nothing: a
 *       detected platform used to switch on Tomcat's RemoteIpValve, which believed the header from
 *       any private or loopback peer, so each request with a new header got a fresh per-IP bucket
 *       (issue 28: 150 web sessions from one address, no 429);
 *   <li>a body over its limit is a 413 from its {@code Content-Length}, or while it streams in
 *       (chunked), before anything parses it, and starts nothing (issue 28: a 30 MB question was
 *       parsed and refused with a 400 after 0.8 s).
 * </ul>
 */
class EdgeLimitsIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long MB = 1024 * 1024;

  /** Long enough on a busy 2-core machine; a server that waits for the rest of a body hits it. */
  private static final int ANSWER_TIMEOUT_MILLIS = 20_000;

  private static AppProcess app;

  @BeforeAll
  static void start() throws Exception {
    app =
        AppProcess.start(
            "edge-limits",
            Map.of(
                "TASK_QUEUE",
                Infra.uniqueTaskQueue("edge"),
                // every pod has these; Spring Boot needs both to detect Kubernetes
                "KUBERNETES_SERVICE_HOST",
                "10.96.0.1",
                "KUBERNETES_SERVICE_PORT",
                "443",
                // a small per-IP bucket (10 at once, then 1 a second), in keys of this run only
                "CS_ACCESSLIMITS_PERIP_CAPACITY",
                "10",
                "CS_ACCESSLIMITS_PERIP_REFILLPERSECOND",
                "1",
                "CS_ACCESSLIMITS_KEYPREFIX",
                "e2e-edge-" + UUID.randomUUID() + ":"));
  }

  @AfterAll
  static void stop() throws Exception {
    Infra.closeAll(app);
  }

  @Test
  void aNewXForwardedForOnEachRequestStillMeetsTheLimitOfItsAddress() throws Exception {
    int refused = 0;
    String refusal = null;
    for (int i = 0; i < 30; i++) {
      HttpResponse<String> response =
          app.send("POST", "/api/v1/web-session", null, "X-Forwarded-For", "198.51.100." + (i + 1));
      if (response.statusCode() == 429) {
        refused++;
        refusal = response.body();
      } else {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      }
    }
    System.out.printf(
        "[edge] 30 web sessions from 127.0.0.1, each with a new X-Forwarded-For, on a detected"
            + " Kubernetes: %d refused%n",
        refused);
    assertThat(refused).as("429s (per-IP bucket: 10, then 1 a second)").isPositive();
    assertThat(JSON.readTree(refusal).path("limit").asText()).isEqualTo("ip");
  }

  // --- bodies over their limit ---

  private static final String CALLER = "Bearer " + AppProcess.CALLER_KEY;
  private static final String STAFF = "Bearer " + AppProcess.STAFF_KEY;
  private static final String CODEC_PREFIX = "{\"payloads\":[{\"metadata\":{},\"data\":\"";
  private static final String CODEC_SUFFIX = "\"}]}";

  private static String questionPrefix(String ids) {
    return "{\"sessionId\":\"s-"
        + ids
        + "\",\"userId\":\"u-"
        + ids
        + "\",\"clientMsgId\":\"m-"
        + ids
        + "\",\"text\":\"";
  }

  /**
   * What a raw POST got back, how much of its body the client had sent when the answer came, and
   * whether it sent all of it.
   */
  private record Sent(RawHttp.Response response, long sentBeforeAnswer, boolean complete) {}

  /**
   * POSTs {@code length} bytes of body ({@code prefix}, filler, {@code suffix}) with a {@code
   * Content-Length} or chunked, written from another thread while this one waits for the answer;
   * only the first {@code sendAtMost} bytes are sent, then the client holds the connection open
   * with the body unfinished, as a slow or hostile one would.
   */
  private static Sent post(
      String path,
      String authorization,
      String prefix,
      String suffix,
      long length,
      boolean chunked,
      long sendAtMost)
      throws Exception {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", app.port()), 5_000);
      socket.setSoTimeout(ANSWER_TIMEOUT_MILLIS);
      OutputStream out = socket.getOutputStream();
      String head =
          "POST "
              + path
              + " HTTP/1.1\r\nHost: 127.0.0.1:"
              + app.port()
              + "\r\nAuthorization: "
              + authorization
              + "\r\nContent-Type: application/json\r\n"
              // the codec serves one namespace and wants it named
              + (path.startsWith("/codec/") ? "X-Namespace: " + Infra.namespace() + "\r\n" : "")
              + (chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + length + "\r\n")
              + "\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      AtomicLong sent = new AtomicLong();
      AtomicBoolean complete = new AtomicBoolean();
      byte[] start = prefix.getBytes(StandardCharsets.US_ASCII);
      byte[] end = suffix.getBytes(StandardCharsets.US_ASCII);
      Thread writer =
          new Thread(
              () -> {
                try {
                  long limit = Math.min(length, sendAtMost);
                  byte[] block = new byte[64 * 1024];
                  while (sent.get() < limit) {
                    int n = (int) Math.min(block.length, limit - sent.get());
                    for (int i = 0; i < n; i++) {
                      long at = sent.get() + i;
                      block[i] =
                          at < start.length
                              ? start[(int) at]
                              : at >= length - end.length
                                  ? end[(int) (at - (length - end.length))]
                                  : (byte) 'a';
                    }
                    if (chunked) {
                      out.write(
                          (Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    }
                    out.write(block, 0, n);
                    if (chunked) {
                      out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    out.flush();
                    sent.addAndGet(n);
                  }
                  if (limit == length) {
                    if (chunked) {
                      out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    out.flush();
                    complete.set(true);
                  }
                } catch (IOException e) {
                  // the server answered and closed: the rest of the body is not wanted
                }
              },
              "edge-limits-body");
      writer.setDaemon(true);
      writer.start();
      RawHttp.Response response = RawHttp.read(socket.getInputStream());
      long sentBeforeAnswer = sent.get();
      socket.close(); // ends a writer still waiting to send
      writer.join(30_000);
      return new Sent(response, sentBeforeAnswer, complete.get());
    }
  }

  private static void assertTooLarge(Sent sent, String what) throws IOException {
    RawHttp.Response response = sent.response();
    System.out.printf(
        "[edge] %s: %d after %d body bytes sent (%s)%n",
        what,
        response.status(),
        sent.sentBeforeAnswer(),
        response.failure() == null ? response.bodyText() : response.failure());
    assertThat(response.status()).as("%s: %s", what, response.failure()).isEqualTo(413);
    assertThat(response.header("content-type")).startsWith("application/problem+json");
    assertThat(JSON.readTree(response.body()).path("status").asInt()).isEqualTo(413);
    assertThat(sent.complete()).as("%s: refused before the body was complete", what).isFalse();
  }

  @Test
  void aQuestionOverSixtyFourKilobytesIsRefusedFromItsContentLengthBeforeItsBodyIsSent()
      throws Exception {
    String ids = UUID.randomUUID().toString();
    // the head alone: it says 30 MB will follow, and none does until an answer came
    Sent sent = post("/api/v1/questions", CALLER, questionPrefix(ids), "\"}", 30 * MB, false, 0);
    assertTooLarge(sent, "question, Content-Length 30 MB, head only");
    assertThat(sent.sentBeforeAnswer()).isZero();
    assertNothingStartedFor(ids);
  }

  @Test
  void aChunkedQuestionIsRefusedOnceItPassesSixtyFourKilobytes() throws Exception {
    String ids = UUID.randomUUID().toString();
    // 1 MB of a 30 MB chunked body, then the client waits: the answer must not need the rest
    Sent sent = post("/api/v1/questions", CALLER, questionPrefix(ids), "\"}", 30 * MB, true, MB);
    assertTooLarge(sent, "question, chunked, 1 MB of 30 MB sent");
    assertNothingStartedFor(ids);
  }

  @Test
  void aWholeThirtyMegabyteQuestionIsRefusedEitherWay() throws Exception {
    String ids = UUID.randomUUID().toString();
    long whole = 30 * MB;
    assertTooLarge(
        post("/api/v1/questions", CALLER, questionPrefix(ids), "\"}", whole, false, whole),
        "question, Content-Length 30 MB, all sent");
    assertTooLarge(
        post("/api/v1/questions", CALLER, questionPrefix(ids), "\"}", whole, true, whole),
        "question, chunked 30 MB, all sent");
    assertNothingStartedFor(ids);
  }

  /**
   * A question with the refused one's IDs is new (not a duplicate): the refused one started
   * nothing. An ordinary question is still accepted.
   */
  private static void assertNothingStartedFor(String ids) throws Exception {
    String body =
        questionPrefix(ids) + "How do I top up?\"}"; // the same session, user and message IDs
    HttpResponse<String> response =
        app.send("POST", "/api/v1/questions", body, "Authorization", CALLER);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
    JsonNode accepted = JSON.readTree(response.body());
    assertThat(accepted.path("duplicate").asBoolean())
        .as("a refused body started nothing")
        .isFalse();
  }

  @Test
  void theCodecRefusesABodyOverItsLimitBeforeReadingItAll() throws Exception {
    Sent declared = post("/codec/decode", STAFF, CODEC_PREFIX, CODEC_SUFFIX, 30 * MB, false, 0);
    assertTooLarge(declared, "codec, Content-Length 30 MB, head only");
    assertThat(declared.sentBeforeAnswer()).isZero();
    // 9 MB of a 30 MB chunked body (the codec's limit is 8 MB), then the client waits
    Sent streamed = post("/codec/decode", STAFF, CODEC_PREFIX, CODEC_SUFFIX, 30 * MB, true, 9 * MB);
    assertTooLarge(streamed, "codec, chunked, 9 MB of 30 MB sent");

    // a codec call of ordinary size still works, chunked too
    String empty = "{\"payloads\":[]}";
    Sent small = post("/codec/decode", STAFF, empty, "", empty.length(), true, empty.length());
    assertThat(small.response().status()).as(small.response().bodyText()).isEqualTo(200);
    assertThat(small.response().bodyText()).isEqualTo(empty);
  }
}
