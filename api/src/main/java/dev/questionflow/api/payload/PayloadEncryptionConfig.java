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
      @Value("${spring.temporal.test-server.enabled:false}") boolean embedded) {
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
      log.warn(
          "PAYLOAD_KEYS is not set: the embedded in-process Temporal server keeps payloads UNENCRYPTED (in this"
              + " process's memory only). With a Temporal server, keys are required.");
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

  @Bean
  SealedText sealedText(PayloadEncryption encryption) {
    return SealedText.with(encryption.keys());
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
