package dev.questionflow.api.payload;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Customer text at rest, bound from {@code cs.payloads} (environment names in application.yml).
 *
 * @param keys {@code PAYLOAD_KEYS}: comma-separated {@code keyId:base64key} (32 bytes each), the
 *     first encrypting, all decrypting
 * @param encryption {@code PAYLOAD_ENCRYPTION}: {@code auto} (required with a Temporal server, used
 *     in the embedded default when keys are given) or {@code off} (plain payloads, on purpose)
 * @param codecOrigins {@code TEMPORAL_UI_ORIGIN}: the Web UI origins allowed to call the codec
 *     endpoint from a browser (comma-separated, e.g. {@code http://localhost:8233})
 * @param closedTicketRetention how long an answered ticket is kept ({@code TICKET_RETENTION},
 *     default 30 days)
 * @param sealedOnly {@code PAYLOAD_SEALED_ONLY}: stored text in Redis is read only in the bound
 *     form ({@code enc2}); plain and {@code enc1} values are refused (set it after a reseal)
 */
@ConfigurationProperties("cs.payloads")
public record PayloadProperties(
    String keys,
    String encryption,
    List<String> codecOrigins,
    Duration closedTicketRetention,
    boolean sealedOnly) {

  public PayloadProperties {
    encryption = encryption == null || encryption.isBlank() ? "auto" : encryption.trim();
    if (!encryption.equals("auto") && !encryption.equals("off")) {
      throw new IllegalArgumentException(
          "PAYLOAD_ENCRYPTION must be auto or off, not '" + encryption + "'");
    }
    codecOrigins =
        codecOrigins == null
            ? List.of()
            : codecOrigins.stream().map(String::trim).filter(o -> !o.isEmpty()).toList();
    closedTicketRetention =
        closedTicketRetention == null ? Duration.ofDays(30) : closedTicketRetention;
  }

  boolean off() {
    return encryption.equals("off");
  }

  boolean keysGiven() {
    return keys != null && !keys.isBlank();
  }
}
