package dev.questionflow.api.payload;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.questionflow.api.payload.PayloadEncryptionConfig.PayloadEncryption;
import dev.questionflow.workflows.codec.EncryptionCodec;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.PayloadCodecException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Temporal's remote codec protocol, for the Web UI and the CLI ({@code --codec-endpoint}): {@code
 * POST /codec/decode} and {@code /codec/encode} take and return {@code {"payloads": [...]}} in the
 * protobuf JSON form. Staff and admins only: anyone else gets 401/403 and sees ciphertext.
 *
 * <p>A body over {@code cs.api.codec-max-body-size} (8 MB: a history page's payloads fit easily) is
 * refused with 413 before it is read (BodySizeFilter).
 *
 * <p>Decoding is per payload: one that no configured key opens (a retired key) is returned as it
 * is, so the rest of a workflow's page still shows.
 */
@Tag(
    name = "codec",
    description = "Temporal payload codec for the Web UI and CLI (staff and admins)")
@RestController
@RequestMapping(CodecController.PATH)
@PreAuthorize("hasRole('STAFF')")
class CodecController {

  static final String PATH = "/codec";

  private static final Logger log = LoggerFactory.getLogger(CodecController.class);

  private final PayloadCodec codec;
  private final String namespace;

  CodecController(
      PayloadEncryption encryption, @Value("${spring.temporal.namespace}") String namespace) {
    this.codec = encryption.keys() == null ? null : new EncryptionCodec(encryption.keys());
    this.namespace = namespace;
  }

  @PostMapping(
      path = "/encode",
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.APPLICATION_JSON_VALUE)
  String encode(
      @RequestHeader(name = "X-Namespace", required = false) String requestNamespace,
      @RequestBody String body) {
    Payloads payloads = parse(requestNamespace, body);
    return print(
        codec == null ? payloads.getPayloadsList() : codec.encode(payloads.getPayloadsList()));
  }

  @PostMapping(
      path = "/decode",
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.APPLICATION_JSON_VALUE)
  String decode(
      @RequestHeader(name = "X-Namespace", required = false) String requestNamespace,
      @RequestBody String body) {
    Payloads payloads = parse(requestNamespace, body);
    if (codec == null) {
      return print(payloads.getPayloadsList());
    }
    List<Payload> decoded = new ArrayList<>(payloads.getPayloadsCount());
    int undecodable = 0;
    for (Payload payload : payloads.getPayloadsList()) {
      try {
        decoded.add(codec.decode(List.of(payload)).get(0));
      } catch (PayloadCodecException e) {
        undecodable++;
        decoded.add(payload);
      }
    }
    if (undecodable > 0) {
      log.warn(
          "codec: {} of {} payloads are encrypted under keys not in PAYLOAD_KEYS; returned as they are",
          undecodable,
          payloads.getPayloadsCount());
    }
    return print(decoded);
  }

  private Payloads parse(String requestNamespace, String body) {
    // required: the Web UI and the CLI always send it (temporalio/cli's payloadCodecInterceptor);
    // a request without it could be for any namespace, so it is not decoded with this one's keys
    if (requestNamespace == null || requestNamespace.isBlank()) {
      throw problem(
          HttpStatus.BAD_REQUEST,
          "The X-Namespace header is required; this codec serves namespace '" + namespace + "'.");
    }
    if (!requestNamespace.equals(namespace)) {
      throw problem(
          HttpStatus.BAD_REQUEST,
          "This codec serves namespace '" + namespace + "', not '" + requestNamespace + "'.");
    }
    Payloads.Builder payloads = Payloads.newBuilder();
    try {
      JsonFormat.parser().merge(body, payloads);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw problem(
          HttpStatus.BAD_REQUEST,
          "Expected {\"payloads\": [{\"metadata\": {...}, \"data\": \"<base64>\"}]} (Temporal's"
              + " Payloads in protobuf JSON).");
    }
    return payloads.build();
  }

  private static String print(List<Payload> payloads) {
    if (payloads.isEmpty()) {
      return "{\"payloads\":[]}"; // the protobuf printer would omit the empty list
    }
    try {
      return JsonFormat.printer()
          .omittingInsignificantWhitespace()
          .print(Payloads.newBuilder().addAllPayloads(payloads).build());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ErrorResponseException problem(HttpStatus status, String detail) {
    return new ErrorResponseException(
        status, ProblemDetail.forStatusAndDetail(status, detail), null);
  }
}
