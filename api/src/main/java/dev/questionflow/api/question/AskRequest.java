package dev.questionflow.api.question;

import dev.questionflow.workflows.question.Question.Tier;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * The body of POST /api/v1/questions.
 *
 * @param callbackUrl where this question's answer callbacks go instead of the caller's registered
 *     URL: on one of the caller's registered callback origins (CALLER_CALLBACKS), else a 400
 */
public record AskRequest(
    @NotBlank
        @Size(max = 128, message = "must be at most 128 characters")
        @Pattern(regexp = ID_PATTERN, message = ID_MESSAGE)
        String sessionId,
    @NotBlank
        @Size(max = 128, message = "must be at most 128 characters")
        @Pattern(regexp = ID_PATTERN, message = ID_MESSAGE)
        String userId,
    @NotBlank
        @Size(max = 128, message = "must be at most 128 characters")
        @Pattern(regexp = ID_PATTERN, message = ID_MESSAGE)
        String clientMsgId,
    @NotBlank @Size(max = MAX_TEXT_LENGTH, message = "must be at most 2000 characters") String text,
    Tier tier,
    @Size(max = 32) @Pattern(regexp = ID_PATTERN, message = ID_MESSAGE) String channel,
    @Min(value = 1, message = "must be at least 1") Integer patienceSeconds,
    Boolean upgrade,
    @Size(max = MAX_URL_LENGTH, message = "must be at most 2048 characters") String callbackUrl) {

  public AskRequest(
      String sessionId, String userId, String clientMsgId, String text, Tier tier, String channel) {
    this(sessionId, userId, clientMsgId, text, tier, channel, null, null, null);
  }

  public AskRequest(
      String sessionId,
      String userId,
      String clientMsgId,
      String text,
      Tier tier,
      String channel,
      Integer patienceSeconds,
      Boolean upgrade) {
    this(sessionId, userId, clientMsgId, text, tier, channel, patienceSeconds, upgrade, null);
  }

  static final int MAX_URL_LENGTH = 2048;

  public static final int MAX_TEXT_LENGTH = 2000;
  static final String ID_PATTERN = "[A-Za-z0-9._:@-]*";
  static final String ID_MESSAGE = "may contain only letters, digits and . _ : @ -";
}
