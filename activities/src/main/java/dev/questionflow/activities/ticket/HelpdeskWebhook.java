package dev.questionflow.activities.ticket;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Optional hand-over to an external helpdesk: POSTs the ticket as JSON with an Idempotency-Key
 * header (the ticket ID), so a retried delivery is recognisable on the other side. A non-2xx answer
 * throws, and Temporal retries.
 */
public class HelpdeskWebhook {

  private final URI url;
  private final HttpClient http;
  private final Duration timeout;
  private final ObjectMapper json =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  public HelpdeskWebhook(URI url, Duration timeout) {
    this.url = url;
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  public void deliver(Ticket ticket) {
    HttpRequest request;
    try {
      request =
          HttpRequest.newBuilder(url)
              .timeout(timeout)
              .header("Content-Type", "application/json")
              .header("Idempotency-Key", ticket.ticketId())
              .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(ticket)))
              .build();
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    try {
      HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException("helpdesk answered HTTP " + response.statusCode());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("helpdesk unreachable: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while delivering ticket " + ticket.ticketId(), e);
    }
  }
}
