package dev.questionflow.workflows.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.PayloadCodecException;
import java.util.List;

/**
 * Temporal payload encryption: every payload (workflow and activity inputs and results, signals,
 * queries, summaries and, through {@link #dataConverter}, failure messages and stack traces) is
 * stored by the server as AES-256-GCM ciphertext of the whole original payload, with the key ID in
 * the payload's metadata. The layout is the one of Temporal's encryption samples ({@code encoding:
 * binary/encrypted}, {@code encryption-key-id}), so their tooling recognises it.
 *
 * <p>Decoding leaves payloads without that encoding alone: histories written before encryption was
 * turned on still replay and still show.
 */
public final class EncryptionCodec implements PayloadCodec {

  static final String METADATA_ENCODING = "encoding";
  static final String ENCODING = "binary/encrypted";
  static final String KEY_ID = "encryption-key-id";
  private static final ByteString ENCODING_BYTES = ByteString.copyFromUtf8(ENCODING);

  private final PayloadKeys keys;

  public EncryptionCodec(PayloadKeys keys) {
    this.keys = keys;
  }

  /**
   * The SDK's default JSON converter behind this codec, failure attributes encoded too (messages
   * and stack traces can quote customer text). One instance serves every client and worker.
   */
  public static DataConverter dataConverter(PayloadKeys keys) {
    return new CodecDataConverter(
        DefaultDataConverter.newDefaultInstance(), List.of(new EncryptionCodec(keys)), true);
  }

  @Override
  public List<Payload> encode(List<Payload> payloads) {
    return payloads.stream().map(this::encode).toList();
  }

  @Override
  public List<Payload> decode(List<Payload> payloads) {
    return payloads.stream().map(this::decode).toList();
  }

  private Payload encode(Payload payload) {
    if (isEncrypted(payload)) {
      return payload; // never twice (e.g. a payload already encoded by a codec server call)
    }
    return Payload.newBuilder()
        .putMetadata(METADATA_ENCODING, ENCODING_BYTES)
        .putMetadata(KEY_ID, ByteString.copyFromUtf8(keys.primaryId()))
        .setData(ByteString.copyFrom(keys.seal(payload.toByteArray())))
        .build();
  }

  private Payload decode(Payload payload) {
    if (!isEncrypted(payload)) {
      return payload;
    }
    ByteString keyId = payload.getMetadataOrDefault(KEY_ID, null);
    if (keyId == null) {
      throw new PayloadCodecException("encrypted payload without " + KEY_ID);
    }
    try {
      return Payload.parseFrom(keys.open(keyId.toStringUtf8(), payload.getData().toByteArray()));
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw new PayloadCodecException(e);
    }
  }

  /**
   * The key ID of the first workflow input in {@code events} that {@code keys} cannot open, or null
   * (a clear message beats the SDK's replay failure when a tool runs without the app's keys).
   *
   * @param keys null = none configured
   */
  public static String missingKey(List<HistoryEvent> events, PayloadKeys keys) {
    for (HistoryEvent event : events) {
      if (!event.hasWorkflowExecutionStartedEventAttributes()) {
        continue;
      }
      for (Payload payload :
          event.getWorkflowExecutionStartedEventAttributes().getInput().getPayloadsList()) {
        if (isEncrypted(payload)) {
          String keyId = payload.getMetadataOrDefault(KEY_ID, ByteString.EMPTY).toStringUtf8();
          if (keys == null || !keys.has(keyId)) {
            return keyId;
          }
        }
      }
    }
    return null;
  }

  static boolean isEncrypted(Payload payload) {
    return ENCODING_BYTES.equals(payload.getMetadataOrDefault(METADATA_ENCODING, null));
  }
}
