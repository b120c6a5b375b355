package dev.questionflow.activities.callback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.questionflow.workflows.callback.CallbackActivities;
import dev.questionflow.workflows.callback.CallbackMessage;
import dev.questionflow.workflows.callback.CallbackTarget;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.failure.ApplicationFailure;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HttpCallbackActivitiesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-12-06T21:00:00Z");

  private record Received(Map<String, List<String>> headers, byte[] body) {}

  private HttpServer server;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final AtomicInteger answer = new AtomicInteger(204);
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private String base;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          received.add(
              new Received(exchange.getRequestHeaders(), exchange.getRequestBody().readAllBytes()));
          if (answer.get() == 302) {
            exchange.getResponseHeaders().add("Location", "http://169.254.169.254/");
          }
          exchange.sendResponseHeaders(answer.get(), -1);
          exchange.close();
        });
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private HttpCallbackActivities activities(String registered) {
    return new HttpCallbackActivities(
        CallerCallbacks.parse(
            "webchat:" + registered, "webchat:" + CallerCallbacksTest.SECRET, Set.of("webchat")),
        Duration.ofSeconds(2),
        meters,
        Clock.fixed(NOW, ZoneOffset.UTC),
        host -> {
          try {
            return InetAddress.getAllByName(host);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static CallbackMessage message(String url) {
    Answer answer =
        new Answer("Within 3-5 working days.", AnswerLevel.FAQ, "card_arrival", null, "n", null);
    return new CallbackMessage(
        "msg_q-1_answered",
        "webchat",
        new CallbackTarget(url, 3600),
        "question.answered",
        NOW.toEpochMilli() - 1500,
        new QuestionStatus("q-1", Stage.ANSWERED, null, null, "card_arrival", answer));
  }

  @Test
  void postsTheStatusInAnEnvelopeSignedTheStandardWebhooksWay() throws Exception {
    activities(base + "/hook").deliverCallback(message(base + "/hook?s=1"));

    Received got = received.get(0);
    assertThat(got.headers().get("Webhook-id")).containsExactly("msg_q-1_answered");
    assertThat(got.headers().get("Webhook-timestamp"))
        .containsExactly(Long.toString(NOW.getEpochSecond()));
    assertThat(got.headers().get("Webhook-signature"))
        .containsExactly(
            WebhookSigner.fromSecret(CallerCallbacksTest.SECRET)
                .sign("msg_q-1_answered", NOW.getEpochSecond(), got.body()));
    JsonNode body = JSON.readTree(got.body());
    assertThat(body.get("type").asText()).isEqualTo("question.answered");
    assertThat(body.get("timestamp").asText()).isEqualTo("2026-12-06T20:59:58.500Z");
    assertThat(body.get("data").get("workflowId").asText()).isEqualTo("q-1");
    assertThat(body.at("/data/answer/text").asText()).isEqualTo("Within 3-5 working days.");
    assertThat(body.get("data").has("queuePosition")).isTrue(); // nulls too, as the endpoint
    assertThat(meters.counter("cs_callbacks_delivered_total", "type", "question.answered").count())
        .isEqualTo(1);
  }

  @Test
  void aNon2xxOrARedirectIsAFailedAttemptForTheRetryPolicy() {
    HttpCallbackActivities callbacks = activities(base + "/hook");
    for (int status : new int[] {500, 302, 404}) {
      answer.set(status);
      assertThatThrownBy(() -> callbacks.deliverCallback(message(base + "/hook")))
          .isInstanceOfSatisfying(
              ApplicationFailure.class,
              f -> {
                assertThat(f.getType()).isEqualTo(HttpCallbackActivities.FAILED);
                assertThat(f.isNonRetryable()).isFalse();
                assertThat(f.getOriginalMessage()).contains("HTTP " + status);
              });
    }
    // the redirect was not followed: one request per attempt, all to the receiver
    assertThat(received).hasSize(3);
    assertThat(meters.find("cs_callbacks_delivered_total").counter()).isNull();
  }

  @Test
  void aUrlOffTheRegisteredOriginIsRefusedWithoutARequest() {
    HttpCallbackActivities callbacks = activities(base + "/hook");

    assertThatThrownBy(() -> callbacks.deliverCallback(message("http://127.0.0.1:1/hook")))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo(CallbackActivities.REFUSED);
              assertThat(f.isNonRetryable()).isTrue();
            });
    assertThat(received).isEmpty();
  }

  @Test
  void aRegisteredHostThatResolvesToAPrivateAddressIsRefused() {
    HttpCallbackActivities callbacks =
        new HttpCallbackActivities(
            CallerCallbacks.parse(
                "webchat:https://chat.example.com/hook",
                "webchat:" + CallerCallbacksTest.SECRET,
                Set.of("webchat")),
            Duration.ofSeconds(2),
            meters,
            Clock.systemUTC(),
            host -> new InetAddress[] {address("10.0.0.7")});

    assertThatThrownBy(() -> callbacks.deliverCallback(message("https://chat.example.com/hook")))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo(CallbackActivities.REFUSED);
              assertThat(f.getOriginalMessage()).contains("10.0.0.7");
            });
  }

  @Test
  void onlyPublicAddressesArePublic() {
    for (String internal :
        List.of(
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1")) {
      assertThat(HttpCallbackActivities.isPublic(address(internal))).as(internal).isFalse();
    }
    assertThat(HttpCallbackActivities.isPublic(address("93.184.215.14"))).isTrue();
    assertThat(HttpCallbackActivities.isPublic(address("2606:2800:21f:cb07:6820:80da:af6b:8b2c")))
        .isTrue();
  }

  private static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal); // a literal: no lookup
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
