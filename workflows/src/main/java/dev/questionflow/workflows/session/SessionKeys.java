package dev.questionflow.workflows.session;

/**
 * The key of a session's line and history: caller, end user and the caller's session ID together,
 * so a session ID that another user or another caller sends is a different session and yields none
 * of the first one's turns. {@code |} cannot occur in any of the three parts (the API allows
 * letters, digits and {@code . _ : @ -}), so the key is unambiguous.
 */
public final class SessionKeys {

  private SessionKeys() {}

  /**
   * @return the scoped key; the bare session ID when {@code caller} is null (questions from before
   *     the scoping)
   */
  public static String of(String caller, String userId, String sessionId) {
    if (caller == null) {
      return sessionId;
    }
    return caller + "|" + userId + "|" + sessionId;
  }
}
