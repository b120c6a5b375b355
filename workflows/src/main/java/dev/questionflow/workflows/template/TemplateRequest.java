package dev.questionflow.workflows.template;

import dev.questionflow.workflows.question.AnswerLevel;

/**
 * @param level FAQ when the entry was found by the semantic matcher, KEYWORD when by the keyword
 *     matcher
 * @param reason why the full model answer was not used, e.g. "model not configured" (for logs and
 *     the notice)
 */
public record TemplateRequest(String faqId, String channel, String reason, AnswerLevel level) {}
