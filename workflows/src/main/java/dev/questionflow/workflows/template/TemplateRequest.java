package dev.questionflow.workflows.template;

/** @param reason why the full model answer was not used, e.g. "model not configured" (for logs and the notice) */
public record TemplateRequest(String faqId, String channel, String reason) {}
