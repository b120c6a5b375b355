package dev.questionflow.api.question;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Workflow IDs derived from session + client message ID, so a second click on "send" maps to the same workflow.
 * Hashed to keep IDs uniform, free of caller-chosen characters, and not to leak IDs into URLs.
 */
public final class WorkflowIds {

  private static final Pattern SHAPE = Pattern.compile("q-[0-9a-f]{32}");

  private WorkflowIds() {}

  public static String forMessage(String sessionId, String clientMsgId) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((sessionId + '\n' + clientMsgId).getBytes(StandardCharsets.UTF_8));
      return "q-" + HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  public static boolean isQuestionId(String workflowId) {
    return workflowId != null && SHAPE.matcher(workflowId).matches();
  }
}
