package dev.questionflow.api.question;

import dev.questionflow.api.security.Requester;
import dev.questionflow.api.security.ServerSecret;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.regex.Pattern;
import org.springframework.stereotype.Component;

/**
 * Workflow IDs of questions: {@code q-} + a 16-hex (64-bit) owner tag + 24 hex of a keyed hash of
 * caller, user, session and client message ID. Keyed with the server secret, so nobody can compute
 * a customer's ID from what a customer knows; deterministic, so a second click on "send" maps to
 * the same workflow. The owner tag (a keyed hash of the owner) lets a status read check ownership
 * without a call to Temporal; 64 bits, so guessing a tag that passes takes about 2^63 tries, where
 * the 32 of the first format took 2^31.
 *
 * <p>IDs of the first format ({@code q-} + 8-hex tag + the same 24 hex) stay valid: their tag is
 * the first 4 bytes of the same HMAC, so both are checked alike, and {@link #legacyOf} derives a
 * question's old ID from its new one (for resubmits of questions asked before the change).
 */
@Component
public class WorkflowIds {

  /** 64-bit tag (current) or 32-bit tag (IDs issued before), then the 96-bit message part. */
  private static final Pattern SHAPE =
      Pattern.compile("q-(?:[0-9a-f]{16}|[0-9a-f]{8})[0-9a-f]{24}");

  private static final int TAG_BYTES = 8;
  private static final int LEGACY_TAG_BYTES = 4;
  private static final int MESSAGE_BYTES = 12;
  private static final int MESSAGE_HEX = 2 * MESSAGE_BYTES;

  private final ServerSecret secret;

  WorkflowIds(ServerSecret secret) {
    this.secret = secret;
  }

  public String forMessage(Requester owner, String userId, String sessionId, String clientMsgId) {
    byte[] message = secret.mac("question-id", owner.ownerKey(), userId, sessionId, clientMsgId);
    return "q-"
        + HexFormat.of().formatHex(ownerTag(owner))
        + HexFormat.of().formatHex(message, 0, MESSAGE_BYTES);
  }

  /**
   * The ID the same question had before owner tags grew to 64 bits: the tag's first 8 hex and the
   * same message part.
   */
  static String legacyOf(String workflowId) {
    return workflowId.substring(0, 2 + 2 * LEGACY_TAG_BYTES)
        + workflowId.substring(workflowId.length() - MESSAGE_HEX);
  }

  /** True when the requester may see the question: its owner, or staff and admins. */
  public boolean readableBy(String workflowId, Requester requester) {
    if (!isQuestionId(workflowId)) {
      return false;
    }
    if (requester.seesAll()) {
      return true;
    }
    int tagBytes = (workflowId.length() - 2 - MESSAGE_HEX) / 2; // 8, or 4 for an old ID
    byte[] tag = HexFormat.of().parseHex(workflowId, 2, 2 + 2 * tagBytes);
    return MessageDigest.isEqual(tag, Arrays.copyOf(ownerTag(requester), tagBytes));
  }

  private byte[] ownerTag(Requester owner) {
    return Arrays.copyOf(secret.mac("question-owner", owner.ownerKey()), TAG_BYTES);
  }

  public static boolean isQuestionId(String workflowId) {
    return workflowId != null && SHAPE.matcher(workflowId).matches();
  }
}
