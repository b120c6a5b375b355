package dev.questionflow.activities.ticket;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Optional hand-over to an external helpdesk: POSTs the ticket as JSON with an Idempotency-Key
 * header (the ticket ID), so a retried delivery is recognisable on the other side. A non-2xx answer
 * throws, and Temporal retries.
 *
 * <p>Every request is signed, so the helpdesk can tell our tickets from forged ones and refuse a
 * replayed one (the scheme of Stripe's and GitHub's webhooks):
 *
 * <pre>
 * X-Signature-Timestamp: 1767081600                       (Unix seconds when this attempt was sent)
 * X-Signature: sha256=&lt;hex HMAC-SHA256(secret, timestamp + "." + body)&gt;
 * </pre>
 *
 * where {@code body} is the exact bytes of the request body. The receiver recomputes the HMAC over
 * the bytes it received, compares in constant time, and refuses a timestamp more than five minutes
 * from its clock; the Idempotency-Key tells a retry (new timestamp, same ticket) from a new ticket.
 *
 * <p>The URL must be https, or http to this machine (loopback), unless plain http is explicitly
 * allowed: the body is a customer's question. A URL without a secret is refused: an unsigned
 * webhook lets anyone who finds the helpdesk's endpoint file tickets in our name.
 */
public class HelpdeskWebhook {

  public static final String SIGNATURE_HEADER = "X-Signature";
  public static final String TIMESTAMP_HEADER = "X-Signature-Timestamp";

  /** A shorter secret is too easy to guess; {@code openssl rand -hex 32} gives 64 characters. */
  static final int MIN_SECRET_LENGTH = 16;

  private static final Pattern IPV4_LITERAL = Pattern.compile("\\d{1,3}(?:\\.\\d{1,3}){3}");

  private final URI url;
  private final HttpClient http;
  private final Duration timeout;
  private final SecretKeySpec key;
  private final Clock clock;
  private final ObjectMapper json =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  /**
   * @param secret the shared HMAC key (HELPDESK_WEBHOOK_SECRET)
   * @param allowPlainHttp true to allow http to a host that is not loopback
   *     (HELPDESK_ALLOW_PLAIN_HTTP)
   * @throws IllegalArgumentException when the secret is missing or short, or the URL is plain http
   *     to another machine without {@code allowPlainHttp}, or neither http nor https
   */
  public HelpdeskWebhook(URI url, Duration timeout, String secret, boolean allowPlainHttp) {
    this(url, timeout, secret, allowPlainHttp, Clock.systemUTC());
  }

  HelpdeskWebhook(URI url, Duration timeout, String secret, boolean allowPlainHttp, Clock clock) {
    checkUrl(url, allowPlainHttp);
    if (secret == null || secret.isBlank()) {
      throw new IllegalArgumentException(
          "HELPDESK_WEBHOOK_URL (cs.tickets.webhook-url) is set but HELPDESK_WEBHOOK_SECRET"
              + " (cs.tickets.webhook-secret) is not: the helpdesk could not tell our tickets from"
              + " forged ones, so the service does not start. Set the same random secret here and"
              + " at the helpdesk (openssl rand -hex 32), or unset HELPDESK_WEBHOOK_URL.");
    }
    if (secret.length() < MIN_SECRET_LENGTH) {
      throw new IllegalArgumentException(
          "HELPDESK_WEBHOOK_SECRET (cs.tickets.webhook-secret) has fewer than "
              + MIN_SECRET_LENGTH
              + " characters: use a random one, e.g. openssl rand -hex 32");
    }
    this.url = url;
    this.timeout = timeout;
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    this.clock = clock;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  private static void checkUrl(URI url, boolean allowPlainHttp) {
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (scheme.equals("https")) {
      return;
    }
    if (!scheme.equals("http")) {
      throw new IllegalArgumentException(
          "HELPDESK_WEBHOOK_URL (cs.tickets.webhook-url) must be an https URL, got " + url);
    }
    if (!allowPlainHttp && !isLoopback(url.getHost())) {
      throw new IllegalArgumentException(
          "HELPDESK_WEBHOOK_URL (cs.tickets.webhook-url) "
              + url
              + " is plain http to another machine: tickets (customers' questions) would cross the"
              + " network unencrypted, so the service does not start. Use https, or set"
              + " HELPDESK_ALLOW_PLAIN_HTTP=true (cs.tickets.webhook-allow-plain-http) if that"
              + " network is trusted.");
    }
  }

  /**
   * localhost, 127.0.0.0/8 or ::1. Only literal addresses are looked at: a host name other than
   * localhost is not resolved, since what it resolves to can change after the check.
   */
  public static boolean isLoopback(String host) {
    if (host == null) {
      return false;
    }
    String h = host.toLowerCase(Locale.ROOT);
    if (h.equals("localhost")) {
      return true;
    }
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    } else if (!IPV4_LITERAL.matcher(h).matches()) {
      return false;
    }
    try {
      return InetAddress.getByName(h).isLoopbackAddress(); // a literal: no DNS lookup
    } catch (UnknownHostException e) {
      return false;
    }
  }

  public void deliver(Ticket ticket) {
    byte[] body;
    try {
      body = json.writeValueAsBytes(ticket);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    String timestamp = Long.toString(clock.instant().getEpochSecond());
    HttpRequest request =
        HttpRequest.newBuilder(url)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", ticket.ticketId())
            .header(TIMESTAMP_HEADER, timestamp)
            .header(SIGNATURE_HEADER, "sha256=" + signature(timestamp, body))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
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

  /** Hex HMAC-SHA256 of {@code timestamp + "." + body}. */
  private String signature(String timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }
}
