package dev.questionflow.api.payload;

import dev.questionflow.workflows.codec.EncryptionCodec;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.codec.SealedText;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Whether customer text is encrypted at rest, decided once: the Temporal client and every worker
 * use the one {@link DataConverter} bean (the Temporal starter picks it up), and the Redis stores
 * seal text with the same keys ({@link SealedText}).
 *
 * <p>With a Temporal server ({@code TEMPORAL_ADDRESS}) keys are required: the app refuses to start
 * without them unless {@code PAYLOAD_ENCRYPTION=off} says plain payloads are meant. The embedded
 * in-process default keeps nothing beyond the process and may run without keys.
 */
@Configuration(proxyBeanMethods = false)
class PayloadEncryptionConfig {

  private static final Logger log = LoggerFactory.getLogger(PayloadEncryptionConfig.class);

  @Bean
  PayloadEncryption payloadEncryption(
      PayloadProperties properties,
      @Value("${spring.temporal.test-server.enabled:false}") boolean embedded,
      @Value("${cs.redis.url:}") String redisUrl) {
    if (properties.off()) {
      log.warn(
          "PAYLOAD_ENCRYPTION=off: questions, answers and tickets are stored in PLAIN TEXT in Temporal's history"
              + " and in Redis; anyone with access to either reads them. Set PAYLOAD_KEYS for production.");
      return PayloadEncryption.OFF;
    }
    if (!properties.keysGiven()) {
      if (!embedded) {
        throw new MissingPayloadKeysException();
      }
      if (redisUrl == null || redisUrl.isBlank()) {
        log.warn(
            "PAYLOAD_KEYS is not set: the embedded in-process Temporal server keeps payloads UNENCRYPTED (in this"
                + " process's memory only). With a Temporal server, keys are required.");
      } else {
        // the stores outlive the process here: tickets, session history and FAQ changes go to Redis
        log.warn(
            "PAYLOAD_KEYS is not set: tickets, session history and what staff teach the FAQ are stored in Redis"
                + " (REDIS_URL) UNENCRYPTED, readable by anyone with access to Redis or its files; the embedded"
                + " Temporal server keeps payloads unencrypted in this process's memory. Set PAYLOAD_KEYS.");
      }
      return PayloadEncryption.OFF;
    }
    PayloadKeys keys = PayloadKeys.parse(properties.keys());
    log.info(
        "payloads and stored customer text are encrypted (AES-256-GCM) with key '{}'; keys for reading: {}",
        keys.primaryId(),
        keys.ids());
    return new PayloadEncryption(keys);
  }

  @Bean
  DataConverter dataConverter(PayloadEncryption encryption) {
    return encryption.keys() == null
        ? DefaultDataConverter.newDefaultInstance()
        : EncryptionCodec.dataConverter(encryption.keys());
  }

  /**
   * @throws IllegalArgumentException for PAYLOAD_SEALED_ONLY without keys (refuses to start)
   */
  @Bean
  SealedText sealedText(PayloadEncryption encryption, PayloadProperties properties) {
    SealedText sealed = SealedText.with(encryption.keys(), properties.sealedOnly());
    if (sealed.sealedOnly()) {
      log.info(
          "PAYLOAD_SEALED_ONLY: stored text in Redis is read only when sealed to its place (enc2)");
    }
    return sealed;
  }

  /**
   * The keys, or null when payloads are not encrypted.
   *
   * @param keys null = off
   */
  record PayloadEncryption(PayloadKeys keys) {
    static final PayloadEncryption OFF = new PayloadEncryption(null);
  }
}
