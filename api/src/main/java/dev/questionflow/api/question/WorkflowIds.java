package dev.questionflow.api.question;

import dev.questionflow.api.security.Requester;
import dev.questionflow.api.security.ServerSecret;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.regex.Pattern;
import org.springframework.stereotype.Component;

/**
 * Workflow IDs of questions: {@code q-} + an 8-hex owner tag + 24 hex of a keyed hash of caller,
 * user, session and client message ID. Keyed with the server secret, so nobody can compute a
 * customer's ID from what a customer knows; deterministic, so a second click on "send" maps to the
 * same workflow. The owner tag (a keyed hash of the owner) lets a status read check ownership
 * without a call to Temporal.
 */
@Component
public class WorkflowIds {

  private static final Pattern SHAPE = Pattern.compile("q-[0-9a-f]{32}");
  private static final int TAG_BYTES = 4;
  private static final int MESSAGE_BYTES = 12;

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

  /** True when the requester may see the question: its owner, or staff and admins. */
  public boolean readableBy(String workflowId, Requester requester) {
    if (!isQuestionId(workflowId)) {
      return false;
    }
    if (requester.seesAll()) {
      return true;
    }
    byte[] tag = HexFormat.of().parseHex(workflowId, 2, 2 + 2 * TAG_BYTES);
    return MessageDigest.isEqual(tag, ownerTag(requester));
  }

  private byte[] ownerTag(Requester owner) {
    return Arrays.copyOf(secret.mac("question-owner", owner.ownerKey()), TAG_BYTES);
  }

  public static boolean isQuestionId(String workflowId) {
    return workflowId != null && SHAPE.matcher(workflowId).matches();
  }
}
