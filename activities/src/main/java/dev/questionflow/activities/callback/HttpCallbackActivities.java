package dev.questionflow.activities.callback;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.activities.ticket.HelpdeskWebhook;
import dev.questionflow.workflows.callback.CallbackActivities;
import dev.questionflow.workflows.callback.CallbackMessage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.InputStream;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * POSTs an answer callback, signed the Standard Webhooks way ({@link WebhookSigner}): headers
 * {@code webhook-id} (the same for every attempt), {@code webhook-timestamp} (this attempt's Unix
 * seconds) and {@code webhook-signature}; body {@code {"type", "timestamp", "data"}} with the
 * question's status as data.
 *
 * <p>Outbound requests are the server-side request forgery surface, so each attempt checks again
 * (configuration may have changed since the question was accepted): the URL must be on the caller's
 * registered origins, and its host must resolve to public addresses only, or to loopback only when
 * a loopback host was registered. Redirects are never followed (a 3xx is a failed attempt). The
 * JDK's HttpClient resolves the host again when it connects; the JVM's address cache (30 s) gives
 * it the addresses checked here, which is what keeps a short-lived DNS answer from swapping in an
 * internal address between check and connect.
 */
public class HttpCallbackActivities implements CallbackActivities {

  /** Failure type of an attempt the retry policy may repeat. */
  public static final String FAILED = "CallbackFailed";

  private final CallerCallbacks callers;
  private final HttpClient http;
  private final Duration timeout;
  private final Clock clock;
  private final Function<String, InetAddress[]> resolver;
  private final MeterRegistry meters;
  private final ObjectMapper json = new ObjectMapper();

  public HttpCallbackActivities(CallerCallbacks callers, Duration timeout, MeterRegistry meters) {
    this(callers, timeout, meters, Clock.systemUTC(), HttpCallbackActivities::resolve);
  }

  HttpCallbackActivities(
      CallerCallbacks callers,
      Duration timeout,
      MeterRegistry meters,
      Clock clock,
      Function<String, InetAddress[]> resolver) {
    this.callers = callers;
    this.timeout = timeout;
    this.clock = clock;
    this.resolver = resolver;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    this.meters = meters;
  }

  @Override
  public void deliverCallback(CallbackMessage message) {
    URI url = URI.create(message.target().url());
    if (!callers.allows(message.caller(), url)) {
      throw refused("the URL is not on a registered callback host of " + message.caller());
    }
    WebhookSigner signer =
        callers
            .signer(message.caller())
            .orElseThrow(() -> refused("no callback secret for " + message.caller()));
    checkAddresses(url.getHost());
    if (attempt() > 1) {
      count("cs_callbacks_retried_total", "Answer callback attempts after a failed one", message);
    }
    byte[] body = body(message);
    long timestamp = clock.instant().getEpochSecond();
    HttpRequest request =
        HttpRequest.newBuilder(url)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("User-Agent", "questionflow-callbacks")
            .header("webhook-id", message.webhookId())
            .header("webhook-timestamp", Long.toString(timestamp))
            .header("webhook-signature", signer.sign(message.webhookId(), timestamp, body))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    int status;
    try {
      // only the status counts: the body is closed unread, so a receiver that streams one slowly
      // cannot hold the attempt past the request timeout (which ends at the response's headers)
      HttpResponse<InputStream> response =
          http.send(request, HttpResponse.BodyHandlers.ofInputStream());
      status = response.statusCode();
      response.body().close();
    } catch (IOException e) {
      throw ApplicationFailure.newFailure("receiver unreachable: " + e, FAILED);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApplicationFailure.newFailure("interrupted", FAILED);
    }
    if (status / 100 != 2) {
      throw ApplicationFailure.newFailure("receiver answered HTTP " + status, FAILED);
    }
    count("cs_callbacks_delivered_total", "Answer callbacks the receiver took (2xx)", message);
  }

  private void count(String name, String description, CallbackMessage message) {
    Counter.builder(name)
        .description(description)
        .tag("type", message.type())
        .register(meters)
        .increment();
  }

  /** The body: Standard Webhooks' envelope around the status as the status endpoint returns it. */
  byte[] body(CallbackMessage message) {
    Map<String, Object> envelope = new LinkedHashMap<>();
    envelope.put("type", message.type());
    envelope.put("timestamp", Instant.ofEpochMilli(message.eventAtEpochMillis()).toString());
    envelope.put("data", message.status());
    try {
      return json.writeValueAsBytes(envelope);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a status always serializes", e);
    }
  }

  /**
   * Loopback only for a registered loopback host; otherwise no loopback, private, link-local (cloud
   * metadata), carrier-grade NAT, unique-local, multicast or unspecified address.
   */
  private void checkAddresses(String host) {
    InetAddress[] addresses = resolver.apply(host);
    boolean loopbackHost = HelpdeskWebhook.isLoopback(host);
    for (InetAddress address : addresses) {
      boolean allowed = loopbackHost ? address.isLoopbackAddress() : isPublic(address);
      if (!allowed) {
        throw refused(host + " resolves to " + address.getHostAddress() + ", which is not allowed");
      }
    }
  }

  static boolean isPublic(InetAddress address) {
    if (address instanceof Inet6Address v6) {
      byte[] b = v6.getAddress();
      if ((b[0] & 0xfe) == 0xfc) { // fc00::/7, unique local
        return false;
      }
      if (isMappedV4(b)) {
        try {
          return isPublic(InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, 12, 16)));
        } catch (UnknownHostException e) {
          return false;
        }
      }
    }
    if (address instanceof Inet4Address) {
      byte[] b = address.getAddress();
      if ((b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64) { // 100.64.0.0/10, carrier-grade NAT
        return false;
      }
      if ((b[0] & 0xff) == 0) { // 0.0.0.0/8
        return false;
      }
    }
    return !(address.isLoopbackAddress()
        || address.isAnyLocalAddress()
        || address.isLinkLocalAddress()
        || address.isSiteLocalAddress()
        || address.isMulticastAddress());
  }

  private static boolean isMappedV4(byte[] b) {
    for (int i = 0; i < 10; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
  }

  private static InetAddress[] resolve(String host) {
    try {
      return InetAddress.getAllByName(host);
    } catch (UnknownHostException e) {
      // DNS may be back on the next attempt
      throw ApplicationFailure.newFailure("cannot resolve " + host, FAILED);
    }
  }

  private static int attempt() {
    try {
      return Activity.getExecutionContext().getInfo().getAttempt();
    } catch (RuntimeException e) {
      return 1; // called outside an activity (tests)
    }
  }

  /** Not retried: no attempt can succeed until the configuration changes (then: redrive). */
  private static ApplicationFailure refused(String why) {
    return ApplicationFailure.newNonRetryableFailure(why, REFUSED);
  }
}
