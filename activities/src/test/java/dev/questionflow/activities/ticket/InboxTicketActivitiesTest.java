package dev.questionflow.activities.ticket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.workflows.ticket.TicketClosing;
import dev.questionflow.workflows.ticket.TicketRef;
import dev.questionflow.workflows.ticket.TicketRequest;
import dev.questionflow.workflows.ticket.TicketUndelivered;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Ticket hand-over: idempotent in the inbox, delivered to a (local, real HTTP) helpdesk exactly
 * once.
 */
class InboxTicketActivitiesTest {

  private record Received(String idempotencyKey, String body) {}

  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private final HttpServer helpdesk = startHelpdesk();
  private final InMemoryTicketInbox inbox = new InMemoryTicketInbox();
  private final Clock clock = Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC);

  private HttpServer startHelpdesk() {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(
          "/tickets",
          exchange -> {
            String body =
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            if (failuresLeft.getAndDecrement() > 0) {
              exchange.sendResponseHeaders(503, -1);
            } else {
              received.add(
                  new Received(exchange.getRequestHeaders().getFirst("Idempotency-Key"), body));
              exchange.sendResponseHeaders(201, -1);
            }
            exchange.close();
          });
      server.start();
      return server;
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterEach
  void stop() {
    helpdesk.stop(0);
  }

  private InboxTicketActivities activities(boolean withHelpdesk) {
    Optional<HelpdeskWebhook> webhook =
        withHelpdesk
            ? Optional.of(
                new HelpdeskWebhook(
                    URI.create("http://127.0.0.1:" + helpdesk.getAddress().getPort() + "/tickets"),
                    Duration.ofSeconds(2),
                    "test-secret-0123456789abcdef",
                    false))
            : Optional.empty();
    return new InboxTicketActivities(inbox, webhook, clock, Redactor.ALL_KINDS);
  }

  private static TicketRequest request(String workflowId) {
    return request(workflowId, "Why is the sky blue?");
  }

  private static TicketRequest request(String workflowId, String question) {
    return new TicketRequest(
        workflowId,
        "s1",
        "u1",
        question,
        "general_question",
        5,
        List.of("card_arrival"),
        "model not configured, no FAQ match",
        "test-caller");
  }

  @Test
  void openingTwiceKeepsOneTicketInTheInbox() {
    InboxTicketActivities tickets = activities(false);

    TicketRef first = tickets.openTicket(request("q-abc"));
    TicketRef second = tickets.openTicket(request("q-abc"));

    assertThat(first.ticketId()).isEqualTo("T-abc").isEqualTo(second.ticketId());
    assertThat(inbox.list(Ticket.Status.OPEN, 10))
        .singleElement()
        .satisfies(t -> assertThat(t.question()).isEqualTo("Why is the sky blue?"));
  }

  @Test
  void theTicketAndTheHelpdeskPayloadCarryTheQuestionWithoutPersonalData() {
    InboxTicketActivities tickets = activities(true);

    tickets.openTicket(request("q-pii", "我的身份证11010519491231002X，卡号4111 1111 1111 1111被冻结了"));
    tickets.deliverTicket("T-pii");

    assertThat(inbox.find("T-pii"))
        .get()
        .satisfies(t -> assertThat(t.question()).isEqualTo("我的身份证[CN_ID]，卡号[CARD]被冻结了"));
    assertThat(received)
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.body())
                    .contains("我的身份证[CN_ID]，卡号[CARD]被冻结了")
                    .doesNotContain("11010519491231002X")
                    .doesNotContain("4111"));
  }

  @Test
  void aFailingHelpdeskFailsTheAttemptButTheTicketIsAlreadySafeAndDeliveredOnceOnRetry() {
    InboxTicketActivities tickets = activities(true);
    failuresLeft.set(1);

    TicketRef opened = tickets.openTicket(request("q-def"));
    assertThat(opened.deliveredToHelpdesk()).isFalse();
    assertThatThrownBy(() -> tickets.deliverTicket("T-def")).hasMessageContaining("503");
    assertThat(inbox.find("T-def")).isPresent();
    assertThat(received).isEmpty();

    TicketRef retried = tickets.deliverTicket("T-def");
    TicketRef again = tickets.deliverTicket("T-def");

    assertThat(retried.deliveredToHelpdesk()).isTrue();
    assertThat(again.deliveredToHelpdesk()).isTrue();
    assertThat(tickets.openTicket(request("q-def")).deliveredToHelpdesk()).isTrue();
    assertThat(received)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.idempotencyKey()).isEqualTo("T-def");
              assertThat(r.body())
                  .contains("\"workflowId\":\"q-def\"")
                  .contains("Why is the sky blue?");
            });
  }

  @Test
  void anUndeliveredTicketIsMarkedAndTheMarkIsClearedByTheLaterDelivery() {
    InboxTicketActivities tickets = activities(true);
    failuresLeft.set(1);
    tickets.openTicket(request("q-dl"));
    assertThatThrownBy(() -> tickets.deliverTicket("T-dl")).hasMessageContaining("503");

    tickets.markTicketUndelivered(new TicketUndelivered("T-dl", "HelpdeskUnavailable: HTTP 503"));
    assertThat(inbox.find("T-dl"))
        .get()
        .satisfies(
            t -> {
              assertThat(t.deliveryError()).isEqualTo("HelpdeskUnavailable: HTTP 503");
              assertThat(t.deliveredAt()).isNull();
            });

    tickets.deliverTicket("T-dl");
    assertThat(inbox.find("T-dl"))
        .get()
        .satisfies(
            t -> {
              assertThat(t.deliveryError()).isNull();
              assertThat(t.deliveredAt()).isNotNull();
            });
    assertThat(received).hasSize(1);
  }

  @Test
  void withoutAHelpdeskDeliveryIsANoOp() {
    InboxTicketActivities tickets = activities(false);
    tickets.openTicket(request("q-nohd"));

    assertThat(tickets.deliverTicket("T-nohd").deliveredToHelpdesk()).isFalse();
    assertThatThrownBy(() -> tickets.deliverTicket("T-unknown"))
        .hasMessageContaining("not in the inbox");
  }

  @Test
  void closingRecordsTheReplyOnceAndMovesTheTicketOutOfOpen() {
    InboxTicketActivities tickets = activities(false);
    tickets.openTicket(request("q-ghi"));

    tickets.closeTicket(new TicketClosing("T-ghi", "alice", "Rayleigh scattering."));
    tickets.closeTicket(new TicketClosing("T-ghi", "bob", "a second, late reply"));

    assertThat(inbox.list(Ticket.Status.OPEN, 10)).isEmpty();
    assertThat(inbox.find("T-ghi"))
        .get()
        .satisfies(
            t -> {
              assertThat(t.status()).isEqualTo(Ticket.Status.ANSWERED);
              assertThat(t.agent()).isEqualTo("alice");
              assertThat(t.reply()).isEqualTo("Rayleigh scattering.");
            });
  }
}
