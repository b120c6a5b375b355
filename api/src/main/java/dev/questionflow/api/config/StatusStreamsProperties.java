package dev.questionflow.api.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Published statuses for event streams and status reads ({@code cs.status-streams},
 * docs/configuration.md).
 *
 * @param enabled whether workers publish each question's changes; off: streams poll Temporal as
 *     before
 * @param keyTtl how long a question's latest status is kept after its last change (then its reads
 *     go to Temporal)
 * @param queueCapacity questions whose status waits for the publisher; beyond it a new one's is
 *     dropped
 * @param silence a streamed question without news this long has its status read again from the
 *     store (a lost notice is found within it)
 */
@ConfigurationProperties("cs.status-streams")
public record StatusStreamsProperties(
    Boolean enabled, Duration keyTtl, Integer queueCapacity, Duration silence) {

  public StatusStreamsProperties {
    enabled = enabled == null || enabled;
    keyTtl = keyTtl == null ? Duration.ofHours(1) : keyTtl;
    queueCapacity = queueCapacity == null ? 10_000 : queueCapacity;
    silence = silence == null ? Duration.ofSeconds(5) : silence;
  }
}
