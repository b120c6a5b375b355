package dev.questionflow.activities.ticket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The webhook's signature, checked by a receiving server the way a helpdesk checks it (as
 * docs/runbook.md "Helpdesk webhook signature" describes), and the URLs it refuses.
 */
class HelpdeskWebhookTest {

  private static final String SECRET = "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c";
  private static final Instant NOW = Instant.parse("2026-11-29T10:00:00Z");

  /** One request as the helpdesk received it. */
  private record Received(String timestamp, String signature, byte[] body) {}

  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final List<Boolean> verdicts = new CopyOnWriteArrayList<>();
  private final HttpServer helpdesk = startHelpdesk();

  private HttpServer startHelpdesk() {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(
          "/tickets",
          exchange -> {
            Received r =
                new Received(
                    exchange.getRequestHeaders().getFirst("X-Signature-Timestamp"),
                    exchange.getRequestHeaders().getFirst("X-Signature"),
                    exchange.getRequestBody().readAllBytes());
            received.add(r);
            boolean genuine = verify(r, SECRET, NOW);
            verdicts.add(genuine);
            exchange.sendResponseHeaders(genuine ? 201 : 401, -1);
            exchange.close();
          });
      server.start();
      return server;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterEach
  void stop() {
    helpdesk.stop(0);
  }

  /**
   * The receiver's check: HMAC-SHA256 over "timestamp.body" with the shared secret, compared in
   * constant time, and a timestamp within five minutes of the receiver's clock.
   */
  private static boolean verify(Received r, String secret, Instant now) {
    if (r.timestamp() == null || r.signature() == null || !r.signature().startsWith("sha256=")) {
      return false;
    }
    long sent = Long.parseLong(r.timestamp());
    if (Math.abs(now.getEpochSecond() - sent) > 300) {
      return false;
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((r.timestamp() + ".").getBytes(StandardCharsets.UTF_8));
      byte[] expected = mac.doFinal(r.body());
      byte[] given = HexFormat.of().parseHex(r.signature().substring("sha256=".length()));
      return MessageDigest.isEqual(expected, given);
    } catch (Exception e) {
      return false;
    }
  }

  private URI url() {
    return URI.create("http://127.0.0.1:" + helpdesk.getAddress().getPort() + "/tickets");
  }

  private HelpdeskWebhook webhook(String secret) {
    return new HelpdeskWebhook(
        url(), Duration.ofSeconds(2), secret, false, Clock.fixed(NOW, ZoneOffset.UTC));
  }

  private static Ticket ticket() {
    return new Ticket(
        "T-sig",
        "q-sig",
        "s1",
        "u1",
        "我的卡[CARD]被冻结了",
        "card_blocked",
        5,
        List.of("card_arrival"),
        "no FAQ match",
        Ticket.Status.OPEN,
        NOW,
        null,
        null,
        null,
        null,
        null,
        "test-caller");
  }

  @Test
  void theSignatureVerifiesOnTheReceivingSide() {
    webhook(SECRET).deliver(ticket());

    assertThat(verdicts).containsExactly(true);
    Received r = received.get(0);
    assertThat(r.timestamp()).isEqualTo(Long.toString(NOW.getEpochSecond()));
    assertThat(r.signature()).matches("sha256=[0-9a-f]{64}");
    assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("我的卡[CARD]被冻结了");
  }

  @Test
  void aTamperedBodyAReplayedTimestampOrAnotherSecretFailVerification() {
    webhook(SECRET).deliver(ticket());
    Received genuine = received.get(0);

    byte[] tampered = genuine.body().clone();
    int at = new String(tampered, StandardCharsets.ISO_8859_1).indexOf("\"priority\":5");
    tampered[at + "\"priority\":".length()] = '9';
    assertThat(
            verify(new Received(genuine.timestamp(), genuine.signature(), tampered), SECRET, NOW))
        .as("a changed body")
        .isFalse();
    assertThat(
            verify(
                new Received(
                    Long.toString(NOW.getEpochSecond() + 1), genuine.signature(), genuine.body()),
                SECRET,
                NOW))
        .as("the signature moved to another timestamp")
        .isFalse();
    assertThat(verify(genuine, SECRET, NOW.plus(Duration.ofMinutes(6))))
        .as("replayed six minutes later")
        .isFalse();
    assertThat(verify(genuine, SECRET, NOW)).as("the genuine request").isTrue();
  }

  @Test
  void aWebhookWithTheWrongSecretIsRefusedByTheHelpdesk() {
    HelpdeskWebhook wrong = webhook("0000000000000000000000000000000000");

    assertThatThrownBy(() -> wrong.deliver(ticket())).hasMessageContaining("401");
    assertThat(verdicts).containsExactly(false);
  }

  @Test
  void noSecretOrAShortOneRefusesToStart() {
    assertThatThrownBy(() -> webhook(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HELPDESK_WEBHOOK_SECRET")
        .hasMessageContaining("does not start");
    assertThatThrownBy(() -> webhook("  ")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> webhook("short-secret")).hasMessageContaining("fewer than 16");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://helpdesk.example/tickets",
        "http://10.1.2.3/tickets",
        "http://192.168.1.20:8080/tickets",
        "http://[2001:db8::1]/tickets",
        "http://127.0.0.1.evil.example/tickets"
      })
  void plainHttpToAnotherMachineRefusesToStart(String url) {
    assertThatThrownBy(
            () -> new HelpdeskWebhook(URI.create(url), Duration.ofSeconds(1), SECRET, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain http")
        .hasMessageContaining("HELPDESK_ALLOW_PLAIN_HTTP=true");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://127.0.0.1:9000/tickets",
        "http://127.10.0.1/tickets",
        "http://localhost:9000/tickets",
        "http://[::1]:9000/tickets",
        "https://helpdesk.example/tickets"
      })
  void httpsAndPlainHttpToThisMachineAreAccepted(String url) {
    assertThatCode(() -> new HelpdeskWebhook(URI.create(url), Duration.ofSeconds(1), SECRET, false))
        .doesNotThrowAnyException();
  }

  @Test
  void plainHttpToAnotherMachineIsAcceptedWhenExplicitlyAllowed() {
    assertThatCode(
            () ->
                new HelpdeskWebhook(
                    URI.create("http://helpdesk.internal/tickets"),
                    Duration.ofSeconds(1),
                    SECRET,
                    true))
        .doesNotThrowAnyException();
  }

  @Test
  void otherSchemesAreRefused() {
    assertThatThrownBy(
            () ->
                new HelpdeskWebhook(
                    URI.create("ftp://helpdesk.example/tickets"),
                    Duration.ofSeconds(1),
                    SECRET,
                    true))
        .hasMessageContaining("must be an https URL");
  }
}
